package neutral_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// BenchmarkJSONResponse is one JSON POST /responses with the echo backend,
// client and server in this process (a profile target; bench/ has the load
// client that compares against a bare net/http baseline).
func BenchmarkJSONResponse(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name, func(b *testing.B) {
			ts := newTestServer(b, c.URL, setup{})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"input":"hello"}`))
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		})
	}
}
