package relay_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// sseFrame is one frame of the owner's feed stream (the tests' one SSE
// reader: testutil).
type sseFrame = testutil.SSEFrame

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
	resp, err := http.DefaultClient.Do(e.As(ownerTok).Request("GET", "/owner/outside-agents/feed/stream", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	fs := &feedStream{frames: make(chan sseFrame, 100)}
	go testutil.EachSSE(resp.Body, func(f sseFrame) bool { fs.frames <- f; return true })
	return fs
}

// collect waits for the next n frames (10 s at most for each); every
// frame's data must be a JSON object.
func (fs *feedStream) collect(t *testing.T, n int) []sseFrame {
	t.Helper()
	var out []sseFrame
	for len(out) < n {
		select {
		case f := <-fs.frames:
			if f.Err != nil {
				t.Fatalf("frame data is not JSON: %q", f.Raw)
			}
			out = append(out, f)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d frames, want %d: %+v", len(out), n, out)
		}
	}
	return out
}
