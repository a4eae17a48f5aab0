package neutral_test

import (
	"context"
	"encoding/json"
	"testing"
)

// readiness decodes a /readyz reply.
func readiness(t *testing.T, r reply) (status, code, detail string) {
	t.Helper()
	var body struct{ Status, Code, Detail string }
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("readyz body is not JSON: %v: %s", err, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("readyz Content-Type %q", ct)
	}
	return body.Status, body.Code, body.Detail
}

func TestReadyz(t *testing.T) {
	eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
		// Public, like /healthz: no token needed.
		r := ts.Get("/readyz")
		mustStatus(t, r, 200)
		if string(r.Body) != `{"status":"ready"}` {
			t.Fatalf("readyz body %s", r.Body)
		}
		mustStatus(t, ts.Do("HEAD", "/readyz", "", nil), 200)

		ctx, cancel := context.WithCancel(context.Background())
		cancel() // nothing runs: Shutdown returns at once
		_ = ts.Srv.Service.Shutdown(ctx)
		r = ts.Get("/readyz")
		mustStatus(t, r, 503)
		if status, code, detail := readiness(t, r); status != "unavailable" || code != "server_shutdown" || detail != "The server is shutting down" {
			t.Fatalf("readyz while shutting down: %s", r.Body)
		}
		mustStatus(t, ts.Get("/healthz"), 200) // liveness is another matter
	})
}

func TestReadyzWithoutStore(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Get("/readyz"), 200)
		_ = ts.Srv.Store.Close()
		r := ts.Get("/readyz")
		mustStatus(t, r, 503)
		if status, code, detail := readiness(t, r); status != "unavailable" || code != "store_unavailable" || detail != "The state store does not answer" {
			t.Fatalf("readyz without a store: %s", r.Body)
		}
		mustStatus(t, ts.Get("/healthz"), 200)
	})
}
