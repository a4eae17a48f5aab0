package servertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// As returns a copy of the server handle that sends the given token.
func (ts *Server) As(token string) *Server {
	c := *ts
	c.Token = token
	return &c
}

// Reply is a finished HTTP exchange.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object.
func (r Reply) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

// Request builds a request to the server with its token; headers are
// name, value pairs.
func (ts *Server) Request(method, path, contentType string, body []byte, headers ...string) *http.Request {
	ts.T.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		ts.T.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// Do sends a request and reads the whole reply.
func (ts *Server) Do(method, path, contentType string, body []byte, headers ...string) Reply {
	ts.T.Helper()
	resp, err := http.DefaultClient.Do(ts.Request(method, path, contentType, body, headers...))
	if err != nil {
		ts.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Get sends a GET.
func (ts *Server) Get(path string) Reply { return ts.Do("GET", path, "", nil) }

// Post sends a JSON POST.
func (ts *Server) Post(path, body string) Reply {
	return ts.Do("POST", path, "application/json", []byte(body))
}

// Stream posts a streaming request to path and returns every SSE frame
// (the stream must answer 200 and end) and the response.
func (ts *Server) Stream(path, body string) ([]testutil.SSEFrame, *http.Response) {
	ts.T.Helper()
	resp, err := http.DefaultClient.Do(ts.Request("POST", path, "application/json", []byte(body)))
	if err != nil {
		ts.T.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		ts.T.Fatalf("stream status %d: %s", resp.StatusCode, b)
	}
	frames := testutil.ReadSSE(resp.Body)
	for _, f := range frames {
		if f.Err != nil {
			ts.T.Fatalf("frame data is not JSON: %q", f.Raw)
		}
	}
	return frames, resp
}

// MustStatus fails the test unless the reply has the status; for error
// statuses it also checks the {"detail","code"} body.
func MustStatus(t testing.TB, r Reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		var e struct{ Detail, Code string }
		if json.Unmarshal(r.Body, &e) != nil || e.Detail == "" || e.Code == "" {
			t.Fatalf("error body is not {detail, code}: %s", r.Body)
		}
	}
}
