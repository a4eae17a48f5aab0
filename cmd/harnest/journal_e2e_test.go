package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

// Resume points (#31) with real binaries: a model agent's background turn
// of three steps with two tools, whose replica is SIGKILLed while step 2
// streams, goes on on the other replica at step 2 (a model agent reruns
// by default): a follower there sees one unbroken stream with one
// response.retracted (of step 2's text only) and one response.completed;
// each completed model step was asked once, the interrupted one twice with
// one Idempotency-Key; each tool ran once; receipt and transcript hold the
// turn once.

// journalFolder is a model agent folder against url with two exec tools,
// t1 and t2, that append their HARNEST_CALL_ID to runs.
func journalFolder(t *testing.T, url, runs string, approval bool) string {
	t.Helper()
	dir := t.TempDir()
	command, _ := json.Marshal([]string{"/bin/sh", "-c", `echo "$HARNEST_CALL_ID" >> "$0"; echo '{"ok":true}'`, runs})
	cfg := fmt.Sprintf(`apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: journal-e2e
spec:
  backend:
    model:
      baseUrl: %s
      model: e2e-model
      apiKey: sk-journal
      timeoutSeconds: 20
      maxSteps: 4
  tools:
    - name: t1
      description: Counts its runs.
      exec: {command: %s}
      approval: %v
    - name: t2
      description: Counts its runs.
      exec: {command: %s}
%s`, url, command, approval, command, prefixed(t))
	return writeModelFolder(t, dir, cfg)
}

func TestKilledModelTurnResumesAtItsStep(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	fake := fakemodel.Start(t)
	runs := filepath.Join(t.TempDir(), "runs")
	var mu sync.Mutex
	asked := map[int][]string{} // step → the Idempotency-Key of each ask
	fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		step := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				step++
			}
		}
		mu.Lock()
		asked[step] = append(asked[step], req.Header.Get("Idempotency-Key"))
		times := len(asked[step])
		mu.Unlock()
		switch {
		case step == 0:
			return fakemodel.Reply{Text: "Looking it up. ", ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "t1", Arguments: "{}"}}}
		case step == 1 && times == 1: // streams until its replica is killed
			return fakemodel.Reply{Text: strings.Repeat("more ", 100), ChunkDelay: 100 * time.Millisecond,
				ToolCalls: []fakemodel.ToolCall{{ID: "c2", Name: "t2", Arguments: "{}"}}}
		case step == 1:
			return fakemodel.Reply{Text: "Once again. ", ToolCalls: []fakemodel.ToolCall{{ID: "c2", Name: "t2", Arguments: "{}"}}}
		default:
			return fakemodel.Reply{Text: "All done."}
		}
	})
	dir := journalFolder(t, fake.URL, runs, false)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"go","background":true}`)
	mustStatus(t, r, http.StatusOK)
	ids := r.JSON(t)
	rid, sid := ids["id"].(string), ids["sessionId"].(string)
	stream := b.openEvents(t, eventsPath(rid, sid, -1))
	var frames []sseFrame
	for killed := false; ; {
		f, ok := stream.next(t, 30*time.Second)
		if !ok {
			break
		}
		frames = append(frames, f)
		if !killed && f.Event == "response.text.delta" && f.Data["delta"] == "more " {
			a.kill(t) // step 2 streams: the replica dies
			killed = true
		}
	}

	mustBeConsecutive(t, frames, 0)
	names := eventNames(frames)
	if count(names, "response.retracted") != 1 || count(names, "response.completed") != 1 || names[len(names)-1] != "response.completed" ||
		count(names, "response.tool_result") != 2 {
		t.Fatalf("events %v", names)
	}
	for i, f := range frames {
		if f.Event != "response.retracted" {
			continue
		}
		ret, _ := f.Data["retracted"].(map[string]any)
		from := int(ret["fromSequence"].(float64))
		if prev := frames[from-1]; prev.Event != "response.tool_result" || !strings.HasPrefix(ret["text"].(string), "more ") || int(ret["toSequence"].(float64)) != i-1 {
			t.Fatalf("retraction %s after %s", f.Raw, prev.Raw)
		}
	}
	_, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "Looking it up. Once again. All done." {
		t.Fatalf("receipt %v", rv)
	}
	mustHoldTurnOnce(t, b, sid)

	mu.Lock()
	defer mu.Unlock()
	for step, want := range []int{1, 2, 1} {
		if len(asked[step]) != want {
			t.Errorf("step %d asked %d times, want %d", step, len(asked[step]), want)
		}
		for _, key := range asked[step] {
			if key != fmt.Sprintf("%s/model/%d", rid, step) {
				t.Errorf("step %d asked with Idempotency-Key %q", step, key)
			}
		}
	}
	got, _ := os.ReadFile(runs)
	if want := rid + "/tool/0/c1\n" + rid + "/tool/1/c2\n"; string(got) != want {
		t.Errorf("tool runs %q, want %q", got, want)
	}
	b.mustStop(t)
}

// A model turn suspended on a tool's approval when its only replica is
// SIGKILLed is answered on another replica, which runs it again from its
// journal: the model step that called the tool is not asked again, the
// approval is not asked again, and the tool runs once.
func TestModelTurnApprovedAfterItsReplicaDied(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	fake := fakemodel.Start(t)
	runs := filepath.Join(t.TempDir(), "runs")
	var mu sync.Mutex
	asked := map[int]int{}
	fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		step := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				step++
			}
		}
		mu.Lock()
		asked[step]++
		mu.Unlock()
		if step == 0 {
			return fakemodel.Reply{Text: "Asking. ", ToolCalls: []fakemodel.ToolCall{{ID: "g1", Name: "t1", Arguments: "{}"}}}
		}
		return fakemodel.Reply{Text: "Approved and done."}
	})
	dir := journalFolder(t, fake.URL, runs, true)
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	v, action := pendingAction(t, a.post(t, "/responses", `{"input":"go"}`), "human_approval")
	a.kill(t)

	done := completed(t, b.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`))
	if done["outputText"] != "Asking. Approved and done." || done["id"] != v["id"] {
		t.Fatalf("answer %v", done)
	}
	mustHoldTurnOnce(t, b, v["sessionId"].(string))
	mu.Lock()
	defer mu.Unlock()
	if asked[0] != 1 || asked[1] != 1 {
		t.Errorf("model steps asked %v, want each once", asked)
	}
	got, _ := os.ReadFile(runs)
	if want := v["id"].(string) + "/tool/0/g1\n"; string(got) != want {
		t.Errorf("tool runs %q, want %q", got, want)
	}
	b.mustStop(t)
}
