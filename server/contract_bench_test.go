package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// BenchmarkTypedTurn compares a JSON turn of a typed agent (input an
// object checked against spec.inputSchema) with the same turn of the
// untyped agent (the same JSON as a string), on the in-process store: the
// difference is what the contract costs a turn.
func BenchmarkTypedTurn(b *testing.B) {
	for _, c := range []struct {
		name  string
		setup servertest.Setup
		body  string
	}{
		{"untyped", servertest.Setup{}, `{"input":"{\"city\":\"Paris\",\"days\":3}"}`},
		{"typed", typedSetup(), `{"input":{"city":"Paris","days":3}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			ts := servertest.Start(b, "", c.setup)
			client := &http.Client{}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				resp, err := client.Post(ts.URL+"/responses", "application/json", strings.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
