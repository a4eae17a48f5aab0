package neutral_test

import (
	"testing"
)

// POST /sessions/{id}/compact on an agent that does not compact (echo):
// 409 compaction_unsupported for the caller's session, 404 for a session
// it does not have, 400 for a body that is not {"keepRecent": 0..1000}.
func TestCompactSessionErrors(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s1"}`), 201)
		r := ts.Post("/sessions/s1/compact", ``)
		mustStatus(t, r, 409)
		if code := r.JSON(t)["code"]; code != "compaction_unsupported" {
			t.Errorf("code = %v, want compaction_unsupported", code)
		}
		mustStatus(t, ts.Post("/sessions/nope/compact", ``), 404)
		for _, body := range []string{`{"keepRecent":1001}`, `{"keepRecent":"2"}`, `{"other":1}`, `[]`} {
			r := ts.Post("/sessions/s1/compact", body)
			mustStatus(t, r, 400)
		}
		mustStatus(t, ts.Post("/sessions/s1/compact", `{"keepRecent":3}`), 409)
	})
}
