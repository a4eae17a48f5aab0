package relay_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// Text that must never reach the owner's receipts or feed.
const (
	argSecret    = "ARG-SECRET-7731"
	resultSecret = "RESULT-SECRET-9924"
)

// toolsSetup is a relay server with tools at home on: "lookup" echoes its
// arguments and counts its runs in a file, "stamp" answers resultSecret,
// "save_note" needs the owner's approval.
func toolsSetup(t *testing.T) (envSetup, func(*config.Config), string) {
	t.Helper()
	runs := filepath.Join(t.TempDir(), "runs")
	tune := func(c *config.Config) {
		c.Spec.Relay.ToolsAtHome = true
		c.Spec.Tools = []config.Tool{
			{Name: "lookup", Exec: &config.ToolExec{Command: []string{"sh", "-c", "echo run >> '" + runs + "'; cat"}}},
			{Name: "stamp", Exec: &config.ToolExec{Command: []string{"echo", resultSecret}}},
			{Name: "save_note", Approval: true, Exec: &config.ToolExec{Command: []string{"echo", "saved " + resultSecret}}},
		}
	}
	return envSetup{}, tune, runs
}

// toolsReplicas starts two relay replicas with tools at home on one store.
func toolsReplicas(t *testing.T, redisURL string) ([]*env, string) {
	t.Helper()
	s, tune, runs := toolsSetup(t)
	clk := &clock{}
	setup := s.serverSetup(clk)
	base := setup.Config
	setup.Config = func(c *config.Config) { base(c); tune(c) }
	var envs []*env
	for _, ts := range servertest.Replicas(t, redisURL, 2, setup) {
		envs = append(envs, newEnvOf(ts, clk))
	}
	return envs, runs
}

// pairTools pairs as the owner and returns the session token, the
// participant ID and the callback token.
func (e *env) pairTools(name, kind string) (string, string, string) {
	e.T.Helper()
	r := e.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"`+name+`","kind":"`+kind+`"}`)
	mustStatus(e.T, r, 201)
	code := r.JSON(e.T)["code"].(string)
	r = e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"`+code+`","card":{"name":"`+name+`","kind":"`+kind+`"}}`)
	mustStatus(e.T, r, 201)
	v := r.JSON(e.T)
	cb, _ := v["callback_token"].(string)
	if !strings.HasPrefix(cb, "hrn_cb_") {
		e.T.Fatalf("exchange answered callback_token %q, want hrn_cb_…: %s", cb, r.Body)
	}
	return v["token"].(string), v["participant_id"].(string), cb
}

// runNote waits for one inbox item and returns its run note.
func (e *env) runNote(token string) string {
	e.T.Helper()
	r := e.do("GET", "/api/outside-agents/v1/inbox?wait=10", token, "")
	mustStatus(e.T, r, 200)
	var v struct {
		Items []struct {
			Callback struct {
				RunNote string `json:"run_note"`
			} `json:"callback"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || len(v.Items) != 1 || v.Items[0].Callback.RunNote == "" {
		e.T.Fatalf("inbox %s (%v), want one item with callback.run_note", r.Body, err)
	}
	return v.Items[0].Callback.RunNote
}

// callTool posts one tools/call with the callback token.
func (e *env) callTool(cb, note, tool, args, callID string) reply {
	e.T.Helper()
	body := fmt.Sprintf(`{"run_note":%q,"tool":%q,"arguments":%s,"call_id":%q}`, note, tool, args, callID)
	return e.do("POST", "/api/outside-agents/v1/tools/call", cb, body)
}

func countRuns(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

func TestToolsAtHomeAcrossReplicas(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			envs, runs := toolsReplicas(t, c.URL)
			a, b := envs[0], envs[1]
			token, pid, cb := a.pairTools("Home", "cli")
			turn := a.turn(ownerToken, "Look something up")
			note := b.runNote(token)
			grants := "/owner/outside-agents/participants/" + pid + "/grants"

			// Not granted: refused, whatever the card declared.
			mustCode(t, b.callTool(cb, note, "lookup", `{}`, "c0"), 403, "tool_not_granted")
			mustCode(t, a.do("POST", grants, ownerToken, `{"tools":["nope"]}`), 422, "unknown_tool")
			mustCode(t, a.do("POST", grants, visitorToken, `{"tools":["lookup"]}`), 404, "not_found")
			mustStatus(t, a.do("POST", grants, ownerToken, `{"tools":["lookup","save_note","stamp"]}`), 200)
			if g := b.do("GET", grants, ownerToken, ""); !strings.Contains(string(g.Body), `"tools":["lookup","save_note","stamp"]`) {
				t.Fatalf("grants on the other replica: %s", g.Body)
			}

			// A granted call runs once per call_id, on either replica.
			args := `{"q":"` + argSecret + `"}`
			r := b.callTool(cb, note, "lookup", args, "c1")
			mustStatus(t, r, 200)
			if v := r.JSON(t); v["status"] != "completed" || v["repeated"] != false || !strings.Contains(string(r.Body), argSecret) {
				t.Fatalf("first call %s", r.Body)
			}
			again := a.callTool(cb, note, "lookup", args, "c1")
			mustStatus(t, again, 200)
			if v := again.JSON(t); v["repeated"] != true || v["status"] != "completed" || !strings.Contains(string(again.Body), argSecret) {
				t.Fatalf("repeated call %s", again.Body)
			}
			if n := countRuns(t, runs); n != 1 {
				t.Fatalf("the tool ran %d times for one call_id", n)
			}
			mustCode(t, a.callTool(cb, note, "lookup", `{"q":"other"}`, "c1"), 409, "call_id_reused")
			mustStatus(t, b.callTool(cb, note, "stamp", `{}`, "c2"), 200)

			// Bad requests.
			mustCode(t, b.callTool(cb, note[:len(note)-2]+"xx", "lookup", `{}`, "c9"), 403, "invalid_run_note")
			mustCode(t, b.callTool(cb, "rn1.forged.note", "lookup", `{}`, "c9"), 403, "invalid_run_note")
			mustCode(t, b.callTool("hrn_cb_nope", note, "lookup", `{}`, "c9"), 401, "invalid_callback_token")
			mustCode(t, b.callTool(token, note, "lookup", `{}`, "c9"), 401, "invalid_callback_token")
			mustCode(t, b.callTool(cb, note, "lookup", `{"q":"`+strings.Repeat("x", 16<<10)+`"}`, "c9"), 413, "arguments_too_large")

			// An approval-gated call waits for the owner, who sees it in the
			// feed and approves it on the other replica.
			done := make(chan reply, 1)
			go func() { done <- b.callTool(cb, note, "save_note", `{"text":"`+argSecret+`"}`, "c3") }()
			approval := waitApproval(t, a)
			// POST /approvals/{id} answers it too, for its owner only.
			mustCode(t, a.do("POST", "/approvals/"+approval, visitorToken, `{"decision":"approve"}`), 404, "approval_not_found")
			mustCode(t, a.do("POST", "/approvals/"+approval, ownerBToken, `{"decision":"approve"}`), 404, "approval_not_found")
			mustStatus(t, a.do("POST", "/approvals/"+approval, ownerToken, `{"decision":"approve"}`), 200)
			select {
			case r := <-done:
				mustStatus(t, r, 200)
				if v := r.JSON(t); v["status"] != "completed" || !strings.Contains(string(r.Body), "saved") {
					t.Fatalf("approved call %s", r.Body)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the approved call did not finish")
			}
			mustCode(t, a.do("POST", "/owner/outside-agents/tool-approvals/"+approval, ownerToken, `{"decision":"deny"}`), 409, "already_resolved")
			mustCode(t, b.do("POST", "/approvals/"+approval, ownerToken, `{"decision":"deny"}`), 409, "already_resolved")

			// Twenty calls a run: c1, c2, c3 and seventeen more; the 21st is refused.
			for i := 4; i <= 20; i++ {
				mustStatus(t, envs[i%2].callTool(cb, note, "stamp", `{}`, fmt.Sprint("c", i)), 200)
			}
			mustCode(t, a.callTool(cb, note, "stamp", `{}`, "c21"), 429, "run_call_limit")
			mustStatus(t, a.callTool(cb, note, "stamp", `{}`, "c20"), 200) // a repeat is still answered

			// The owner's receipts and feed name each call, never its
			// arguments or result.
			rec := b.do("GET", "/owner/outside-agents/participants/"+pid+"/tool-calls?limit=100", ownerToken, "")
			mustStatus(t, rec, 200)
			var calls struct {
				Calls []map[string]any `json:"calls"`
			}
			_ = json.Unmarshal(rec.Body, &calls)
			if len(calls.Calls) != 20 || calls.Calls[0]["call_id"] != "c20" || calls.Calls[0]["status"] != "completed" {
				t.Fatalf("receipts %s", rec.Body)
			}
			feed := a.do("GET", "/owner/outside-agents/feed?limit=100", ownerToken, "")
			for what, body := range map[string][]byte{"receipts": rec.Body, "feed": feed.Body} {
				for _, secret := range []string{argSecret, resultSecret, "saved"} {
					if strings.Contains(string(body), secret) {
						t.Errorf("the owner's %s contain %q: %s", what, secret, body)
					}
				}
			}

			// A note expires after ten minutes.
			a.Clock.Advance(11 * time.Minute)
			mustCode(t, b.callTool(cb, note, "stamp", `{}`, "late"), 403, "run_note_expired")
			wait(t, turn)

			// Pausing ends the callback token at once: a pause and a resume
			// with no call in between leave it dead, as does a pause.
			mustStatus(t, a.do("POST", "/owner/outside-agents/participants/"+pid+"/pause", ownerToken, ""), 200)
			mustStatus(t, a.do("POST", "/owner/outside-agents/participants/"+pid+"/resume", ownerToken, ""), 200)
			mustCode(t, b.callTool(cb, note, "stamp", `{}`, "p1"), 401, "invalid_callback_token")
			mustStatus(t, a.do("POST", "/owner/outside-agents/participants/"+pid+"/pause", ownerToken, ""), 200)
			mustCode(t, b.callTool(cb, note, "stamp", `{}`, "p2"), 401, "invalid_callback_token")
		})
	}
}

// waitApproval waits for a tool call waiting for approval in the owner's
// feed and returns its approval ID.
func waitApproval(t *testing.T, e *env) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := e.do("GET", "/owner/outside-agents/feed?limit=20", ownerToken, "")
		mustStatus(t, r, 200)
		var v struct {
			Items []struct {
				Type string `json:"type"`
				Item struct {
					Status     string `json:"status"`
					ApprovalID string `json:"approval_id"`
				} `json:"item"`
			} `json:"items"`
		}
		_ = json.Unmarshal(r.Body, &v)
		for _, it := range v.Items {
			if it.Type == "tool_call" && it.Item.Status == "awaiting_approval" && it.Item.ApprovalID != "" {
				return it.Item.ApprovalID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no tool call waiting for approval reached the owner's feed")
	return ""
}

func TestToolsAtHomeOff(t *testing.T) {
	e := newEnv(t, "", envSetup{})
	r := e.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"Home","kind":"cli"}`)
	mustStatus(t, r, 201)
	code := r.JSON(t)["code"].(string)
	r = e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"`+code+`","card":{"name":"Home","kind":"cli"}}`)
	mustStatus(t, r, 201)
	if strings.Contains(string(r.Body), "callback_token") {
		t.Fatalf("exchange with tools at home off: %s", r.Body)
	}
	mustCode(t, e.do("POST", "/api/outside-agents/v1/tools/call", "x", `{}`), 404, "tools_at_home_off")
}
