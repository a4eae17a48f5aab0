package backend_test

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// Steering a worker's turn from the replica that does not run it: the
// worker gets a steer line with the message (testdata/steer_worker.py
// answers with it), and the transcript keeps the steer where it was taken.
func TestWorkerSteerFromTheOtherReplica(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "steer_worker.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			rs := servertest.Replicas(t, c.URL, 2, servertest.Setup{Config: func(cfg *config.Config) {
				cfg.Spec.Backend = config.Backend{Exec: &config.ExecBackend{Command: []string{"python3", script}, Mode: "worker"}}
			}})
			a, b := rs[0], rs[1]
			start := a.Post("/responses", `{"input":"Start","background":true}`)
			servertest.MustStatus(t, start, 200)
			env := start.JSON(t)
			id, session := env["id"].(string), env["sessionId"].(string)
			waitEvent(t, b, id, session, "response.text.delta") // the worker said "Working. "
			r := b.Post("/responses/"+id+"/steer?sessionId="+session, `{"input":[{"type":"text","text":"Go left"}]}`)
			servertest.MustStatus(t, r, 202)
			final := waitReceipt(t, b, id, session)
			if final["status"] != "completed" || final["outputText"] != "Working. Steered: Go left (steer_, text)" {
				t.Fatalf("receipt = %v", final)
			}
			got := transcript(t, a, session)
			want := "user: Start|assistant: Working. |user: Go left|assistant: Steered: Go left (steer_, text)"
			if s := join(got); s != want {
				t.Errorf("transcript = %s, want %s", s, want)
			}
		})
	}
}

// waitEvent follows a response until an event of type typ, bounded.
func waitEvent(t *testing.T, ts *servertest.Server, id, session, typ string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := ts.Request("GET", "/responses/"+id+"/events?sessionId="+session, "", nil).WithContext(ctx)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	found := false
	testutil.EachSSE(resp.Body, func(f testutil.SSEFrame) bool {
		found = f.Event == typ
		return !found
	})
	if !found {
		t.Fatalf("response %s had no %s within 10 s", id, typ)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "|"
		}
		out += x
	}
	return out
}
