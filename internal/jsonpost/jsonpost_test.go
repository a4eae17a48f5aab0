package jsonpost

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
			r.Header.Get("Authorization") != r.URL.Query().Get("want") || string(body) != `{"a":1}` {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte("0123456789"))
	}))
	defer srv.Close()
	ctx := context.Background()

	ans, err := Post(ctx, srv.Client(), srv.URL+"?want=Bearer+k", "k", []byte(`{"a":1}`), 4)
	if err != nil || ans.StatusCode != http.StatusTeapot || ans.Status != "418 I'm a teapot" || string(ans.Body) != "0123" {
		t.Fatalf("Post = %+v, %v; want 418 and the body cut at 4 bytes", ans, err)
	}
	if ans, err := Post(ctx, srv.Client(), srv.URL+"?want=", "", []byte(`{"a":1}`), 100); err != nil || ans.StatusCode != http.StatusTeapot {
		t.Fatalf("without a key: %+v, %v; want no Authorization header", ans, err)
	}
	if _, err := Post(ctx, srv.Client(), "http://[::1", "", nil, 1); StepOf(err) != Build {
		t.Errorf("a bad URL failed at step %v (%v), want Build", StepOf(err), err)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err := Post(ctx, closed.Client(), closed.URL, "", nil, 1); err == nil || StepOf(err) != Send {
		t.Errorf("a closed server failed at step %v (%v), want Send", StepOf(err), err)
	}
}
