package relay_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

type sseFrame struct{ event, id, data string }

type feedStream struct {
	frames chan sseFrame
}

// followFeed opens the first owner's SSE stream and reads it in the
// background.
func (e *env) followFeed(t *testing.T) *feedStream {
	t.Helper()
	return e.followFeedAs(t, ownerToken)
}

// followFeedAs opens the SSE stream of the owner of ownerTok.
func (e *env) followFeedAs(t *testing.T, ownerTok string) *feedStream {
	t.Helper()
	req, _ := http.NewRequest("GET", e.URL+"/owner/outside-agents/feed/stream", nil)
	req.Header.Set("Authorization", "Bearer "+ownerTok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	fs := &feedStream{frames: make(chan sseFrame, 100)}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var f sseFrame
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if f.data != "" {
					fs.frames <- f
				}
				f = sseFrame{}
			case strings.HasPrefix(line, "event: "):
				f.event = line[7:]
			case strings.HasPrefix(line, "id: "):
				f.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				f.data = line[6:]
			}
		}
	}()
	return fs
}

func (fs *feedStream) collect(t *testing.T, n int) []sseFrame {
	t.Helper()
	var out []sseFrame
	for len(out) < n {
		select {
		case f := <-fs.frames:
			out = append(out, f)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d frames, want %d: %+v", len(out), n, out)
		}
	}
	return out
}
