package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestResponsesIsFixedJSON(t *testing.T) {
	srv := httptest.NewServer(newMux())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/responses", "application/json", strings.NewReader(`{"input":"hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil || v["outputText"] != "Echo: hello" {
		t.Fatalf("body %s: %v", body, err)
	}
}

func TestSSEHasSixFramesEndingCompleted(t *testing.T) {
	srv := httptest.NewServer(newMux())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/sse", "application/json", strings.NewReader(`{"input":"hello","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	frames := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	if len(frames) != 6 || !strings.HasPrefix(frames[5], "event: response.completed\n") {
		t.Fatalf("got %d frames:\n%s", len(frames), body)
	}
	for _, f := range frames {
		data := f[strings.Index(f, "data: ")+len("data: "):]
		if !json.Valid([]byte(data)) {
			t.Errorf("frame data is not JSON: %s", data)
		}
	}
}
