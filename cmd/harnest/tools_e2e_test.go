package main

// Tools at home end to end with real processes: two "harnest serve"
// replicas on one real Redis with spec.relay.toolsAtHome, "harnest pair",
// and "harnest connect --exec" running a Python script that calls the
// granted tools through tools/call with its item's run note.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	toolsE2EArg    = "ARG-E2E-5521"
	toolsE2EResult = "RESULT-E2E-8810"
)

// toolsAgentScript answers one question by calling tools at home and
// prints what each call answered; it saves its callback token and run
// note to the file of argv[1] for the test's later calls.
const toolsAgentScript = `import json, os, sys, urllib.request, urllib.error
sys.stdin.read()
url, cb, note = os.environ["HARNEST_TOOLS_URL"], os.environ["HARNEST_CALLBACK_TOKEN"], os.environ["HARNEST_RUN_NOTE"]
with open(sys.argv[1], "w") as f:
    json.dump({"url": url, "callback": cb, "note": note}, f)
def call(tool, args, cid, run_note=note):
    body = json.dumps({"run_note": run_note, "tool": tool, "arguments": args, "call_id": cid}).encode()
    req = urllib.request.Request(url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + cb})
    try:
        with urllib.request.urlopen(req, timeout=40) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)
out = []
first = call("lookup", {"q": "` + toolsE2EArg + `"}, "c1")
out.append("c1=" + first["status"] + ("+arg" if "` + toolsE2EArg + `" in json.dumps(first.get("output")) else ""))
out.append("repeat=" + str(call("lookup", {"q": "` + toolsE2EArg + `"}, "c1")["repeated"]))
out.append("ungranted=" + call("secret_tool", {}, "u1")["code"])
out.append("gated=" + call("save_note", {"text": "` + toolsE2EArg + `"}, "c2")["status"])
out.append("forged=" + call("lookup", {}, "f1", run_note=note[:-3] + "abc")["code"])
for i in range(3, 21):
    call("lookup", {}, "c%d" % i)
out.append("c21=" + call("lookup", {}, "c21").get("code", "ran"))
print(" ".join(out))
`

// toolsFolder is relayFolder with tools at home: "lookup" echoes its
// arguments, "save_note" needs the owner's approval, "secret_tool" is
// never granted.
func toolsFolder(t *testing.T) string {
	t.Helper()
	dir := relayFolder(t, true)
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tools := `relay: {name: "My CLI", kind: cli}
  relay: {toolsAtHome: true}
  tools:
    - {name: lookup, exec: {command: [cat]}}
    - {name: save_note, approval: true, exec: {command: [echo, "saved ` + toolsE2EResult + `"]}}
    - {name: secret_tool, exec: {command: [echo, ` + toolsE2EResult + `]}}`
	cfg := strings.Replace(string(b), `relay: {name: "My CLI", kind: cli}`, tools, 1)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestToolsAtHomeEndToEnd(t *testing.T) {
	t.Parallel()
	needProgram(t, "python3")
	needProgram(t, "cat")
	url := realRedis(t)
	dir := toolsFolder(t)
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	owner := []string{"Authorization", "Bearer " + relayE2EOwnerToken}

	work := t.TempDir()
	script, state := filepath.Join(work, "agent.py"), filepath.Join(work, "state.json")
	if err := os.WriteFile(script, []byte(toolsAgentScript), 0o600); err != nil {
		t.Fatal(err)
	}
	code := pairCLI(t, a.URL, relayE2EOwnerToken)
	c := startConnectExec(t, b.URL, code, "python3 "+script+" "+state)

	r := a.get(t, "/owner/outside-agents/participants", owner...)
	mustStatus(t, r, http.StatusOK)
	var ps struct {
		Participants []struct {
			ID string `json:"participant_id"`
		} `json:"participants"`
	}
	if err := json.Unmarshal(r.Body, &ps); err != nil || len(ps.Participants) != 1 {
		t.Fatalf("participants %s", r.Body)
	}
	pid := ps.Participants[0].ID
	mustStatus(t, b.post(t, "/owner/outside-agents/participants/"+pid+"/grants", `{"tools":["lookup","save_note"]}`, owner...), http.StatusOK)

	// The turn goes to the agent; its gated call waits for the owner,
	// who approves it from the feed on the other replica.
	answered := make(chan map[string]any, 1)
	go func() {
		r, err := a.exchange(60*time.Second, "POST", "/responses", `{"input":"use your tools"}`, owner...)
		var v map[string]any
		if err == nil {
			_ = json.Unmarshal(r.Body, &v)
		}
		answered <- v
	}()
	approveFromFeed(t, b, owner)
	var v map[string]any
	select {
	case v = <-answered:
	case <-time.After(60 * time.Second):
		t.Fatal("the turn did not finish")
	}
	want := "c1=completed+arg repeat=True ungranted=tool_not_granted gated=completed forged=invalid_run_note c21=run_call_limit"
	if v["outputText"] != want {
		t.Fatalf("the agent reported %q, want %q (%v)", v["outputText"], want, v)
	}

	// The owner's receipts and feed hold no argument or result text.
	rec := a.get(t, "/owner/outside-agents/participants/"+pid+"/tool-calls?limit=100", owner...)
	mustStatus(t, rec, http.StatusOK)
	if n := strings.Count(string(rec.Body), `"call_id"`); n != 20 {
		t.Fatalf("%d receipts, want 20: %s", n, rec.Body)
	}
	feed := b.get(t, "/owner/outside-agents/feed?limit=100", owner...)
	for what, body := range map[string][]byte{"receipts": rec.Body, "feed": feed.Body} {
		for _, secret := range []string{toolsE2EArg, toolsE2EResult, "saved"} {
			if strings.Contains(string(body), secret) {
				t.Errorf("the owner's %s contain %q: %s", what, secret, body)
			}
		}
	}

	// After a pause the callback token is dead, also once resumed.
	saved, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ URL, Callback, Note string }
	_ = json.Unmarshal(saved, &st)
	callAfter := func(id string) reply {
		body := fmt.Sprintf(`{"run_note":%q,"tool":"lookup","arguments":{},"call_id":%q}`, st.Note, id)
		return a.post(t, "/api/outside-agents/v1/tools/call", body, "Authorization", "Bearer "+st.Callback)
	}
	mustStatus(t, callAfter("c20"), http.StatusOK) // a repeat: the run's calls are spent
	mustStatus(t, a.post(t, "/owner/outside-agents/participants/"+pid+"/pause", "", owner...), http.StatusOK)
	mustStatus(t, callAfter("c20"), http.StatusUnauthorized)
	mustStatus(t, b.post(t, "/owner/outside-agents/participants/"+pid+"/resume", "", owner...), http.StatusOK)
	mustStatus(t, callAfter("c20"), http.StatusUnauthorized)

	c.stop()
	a.mustStop(t)
	b.mustStop(t)
	for what, out := range map[string]string{"connect": c.stdout.String() + c.stderr.String(),
		"serve A": a.stdout.String() + a.stderr.String(), "serve B": b.stdout.String() + b.stderr.String()} {
		mustNotLeak(t, what, out, code)
		if strings.Contains(out, toolsE2EArg) || strings.Contains(out, toolsE2EResult) {
			t.Errorf("%s output holds a tool's arguments or result:\n%s", what, out)
		}
	}
}

// approveFromFeed waits for a tool call waiting for approval in the
// owner's feed and approves it.
func approveFromFeed(t *testing.T, h *harnest, owner []string) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		r := h.get(t, "/owner/outside-agents/feed?limit=50", owner...)
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
			if it.Type == "tool_call" && it.Item.Status == "awaiting_approval" {
				mustStatus(t, h.post(t, "/owner/outside-agents/tool-approvals/"+it.Item.ApprovalID, `{"decision":"approve"}`, owner...), http.StatusOK)
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no tool call waiting for approval reached the owner's feed")
}
