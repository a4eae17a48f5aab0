package httpjson

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPostGetAndDelete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.Error(w, `{"detail":"no such thing"}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost && r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "not JSON", http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"method":"` + r.Method + `","body":` + string(append([]byte(`"`), append(body, '"')...)) + `}`))
	}))
	defer srv.Close()
	ctx := context.Background()

	var got struct{ Method, Body string }
	if err := Post(ctx, srv.Client(), srv.URL+"/x", "hello", &got); err != nil || got.Method != "POST" || got.Body != "hello" {
		t.Fatalf("Post = %+v, %v", got, err)
	}
	if err := Get(ctx, srv.Client(), srv.URL+"/x", &got); err != nil || got.Method != "GET" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if err := Get(ctx, srv.Client(), srv.URL+"/x", nil); err != nil {
		t.Fatalf("Get with no out: %v", err)
	}
	err := Get(ctx, srv.Client(), srv.URL+"/missing", &got)
	if err == nil || !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), "no such thing") {
		t.Fatalf("Get /missing = %v, want the status and the body", err)
	}
	if err := Delete(ctx, srv.Client(), srv.URL+"/x"); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	if err := Delete(ctx, srv.Client(), srv.URL+"/missing"); err == nil || !strings.Contains(err.Error(), "DELETE /missing: HTTP 404") {
		t.Fatalf("Delete /missing = %v, want the method, path and status", err)
	}
}
