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

// TestFeedStreamResumesAfterTheLaterCursor: the feed stream, reconnected by
// an EventSource with its URL's after and a newer Last-Event-ID, resumes
// after the later of the two, whichever carries it; a bad Last-Event-ID is
// the 400 of a bad after.
func TestFeedStreamResumesAfterTheLaterCursor(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		token, _ := e.pair("Box", "cli")
		for _, text := range []string{"one", "two", "three"} {
			mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", token, `{"text":"`+text+`"}`), 202)
		}
		open := func(after, lastEventID string) *http.Response {
			req := e.As(ownerToken).Request("GET", "/owner/outside-agents/feed/stream?after="+after, "", nil, "Last-Event-ID", lastEventID)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			return resp
		}
		first := func(after, lastEventID string) []string {
			resp := open(after, lastEventID)
			if resp.StatusCode != 200 {
				t.Fatalf("after=%s, Last-Event-ID %q: status %d", after, lastEventID, resp.StatusCode)
			}
			fs := &feedStream{frames: make(chan sseFrame, 100)}
			go testutil.EachSSE(resp.Body, func(f sseFrame) bool { fs.frames <- f; return true })
			var texts []string
			for _, f := range fs.collect(t, 1) {
				texts = append(texts, f.Data["text"].(string), f.ID)
			}
			return texts
		}
		var ids []string
		resp := open("0-0", "")
		fs := &feedStream{frames: make(chan sseFrame, 100)}
		go testutil.EachSSE(resp.Body, func(f sseFrame) bool { fs.frames <- f; return true })
		for _, f := range fs.collect(t, 3) {
			ids = append(ids, f.ID)
		}
		if got := first(ids[0], ids[1]); got[0] != "three" {
			t.Errorf("after the first, Last-Event-ID the second: starts with %v, want three", got)
		}
		if got := first(ids[1], ids[0]); got[0] != "three" {
			t.Errorf("after the second, Last-Event-ID the first: starts with %v, want three", got)
		}
		if r := open(ids[0], "x"); r.StatusCode != 400 {
			t.Errorf("a bad Last-Event-ID: status %d, want 400", r.StatusCode)
		}
	})
}
