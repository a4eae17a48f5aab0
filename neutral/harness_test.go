package neutral_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// testServer is a whole harnest server over httptest (servertest), with
// this package's helpers as methods.
type testServer struct{ *servertest.Server }

// setup describes a server under test.
type setup = servertest.Setup

// reply is a finished HTTP exchange.
type reply = servertest.Reply

// eachStore runs fn against a server on the in-process store and on a real
// redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *testServer)) {
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) { fn(t, &testServer{ts}) })
}

func newTestServer(t testing.TB, redisURL string, s setup) *testServer {
	return &testServer{servertest.Start(t, redisURL, s)}
}

// as returns a copy of the server handle that sends the given token.
func (ts *testServer) as(token string) *testServer { return &testServer{ts.As(token)} }

var mustStatus = servertest.MustStatus

// sseFrame is one parsed SSE frame (the tests' one reader: testutil).
type sseFrame = testutil.SSEFrame

// stream posts a streaming request to /responses and returns its frames.
func (ts *testServer) stream(body string) ([]sseFrame, *http.Response) {
	return ts.Stream("/responses", body)
}

func readFrames(t testing.TB, body io.Reader) []sseFrame {
	t.Helper()
	frames := testutil.ReadSSE(body)
	for _, f := range frames {
		if f.Err != nil {
			t.Fatalf("frame data is not JSON: %q", f.Raw)
		}
	}
	return frames
}
