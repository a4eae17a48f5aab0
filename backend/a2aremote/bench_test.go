package a2aremote_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// BenchmarkTurn measures one JSON turn (POST /responses, a new session
// each time) against a harnest server of examples/hello: "direct" asks it
// directly, "via-a2a" asks a front harnest whose a2a backend asks it over
// A2A (HTTP+JSON, streamed). The difference is what the a2a backend adds
// per turn:
//
//	go test ./backend/a2aremote -run '^$' -bench Turn -benchtime 2000x
func BenchmarkTurn(b *testing.B) {
	remote := servertest.Start(b, "", servertest.Setup{PublicURL: true})
	front := servertest.Start(b, "", servertest.Setup{Folder: "testdata/remote", Config: frontConfig(remote.URL, nil)})
	body := `{"input":"Hello there, remote agent"}`
	for _, c := range []struct {
		name string
		ts   *servertest.Server
	}{{"direct", remote}, {"via-a2a", front}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{}
			for b.Loop() {
				resp, err := client.Post(c.ts.URL+"/responses", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(out), "Echo: Hello there") {
					b.Fatalf("HTTP %d: %s", resp.StatusCode, out)
				}
			}
		})
	}
}
