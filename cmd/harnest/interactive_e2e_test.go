package main

// End-to-end tests of interactive turns against real "harnest serve"
// processes: the example workers (streaming, tools, approvals, client tools,
// a crashing worker), and approvals, event resumption, cancels and lost
// replicas across two processes on one real Redis.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// Helpers

// copyFolder copies the files (not subfolders) of src into a new temp dir.
func copyFolder(t *testing.T, src string) string {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// workerFolder copies examples/<name> and turns thinking on in its output
// policy, so the workers' thinking deltas reach the stream.
func workerFolder(t *testing.T, name string) string {
	t.Helper()
	dir := copyFolder(t, filepath.Join("../../examples", name))
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	if !strings.Contains(cfg, "\nspec:\n") {
		t.Fatalf("%s/config.yaml has no \"spec:\" line to adapt:\n%s", name, cfg)
	}
	cfg = strings.Replace(cfg, "\nspec:\n", "\nspec:\n  output:\n    thinking: true\n", 1)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// needProgram skips the test when name is not on PATH.
func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("needs %s: %v", name, err)
	}
}

// pendingAction checks that r is a 200 requires_action envelope whose
// required action has type typ, and returns the envelope and the action.
func pendingAction(t *testing.T, r reply, typ string) (map[string]any, map[string]any) {
	t.Helper()
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "requires_action" {
		t.Fatalf("status %v, want requires_action: %s", v["status"], r.Body)
	}
	action, _ := v["requiredAction"].(map[string]any)
	if action == nil || action["type"] != typ {
		t.Fatalf("requiredAction %v, want type %s: %s", v["requiredAction"], typ, r.Body)
	}
	if id, _ := action["id"].(string); id == "" {
		t.Fatalf("requiredAction has no id: %s", r.Body)
	}
	return v, action
}

// completed checks that r is a 200 completed envelope and returns it.
func completed(t *testing.T, r reply) map[string]any {
	t.Helper()
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "completed" {
		t.Fatalf("status %v, want completed: %s", v["status"], r.Body)
	}
	return v
}

// errorCode is error.code of an envelope, or "".
func errorCode(v map[string]any) string {
	e, _ := v["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// waitReceipt polls the receipt of ids on h until its status is not
// in_progress (at most limit) and returns it.
func (h *harnest) waitReceipt(t *testing.T, ids map[string]any, limit time.Duration) (reply, map[string]any) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r := h.get(t, receiptPath(ids))
		mustStatus(t, r, http.StatusOK)
		v := r.JSON(t)
		// A final status: an answered wait may still show requires_action
		// until the replica that holds the response has resumed it.
		if v["status"] != "in_progress" && v["status"] != "requires_action" {
			return r, v
		}
		if time.Now().After(deadline) {
			t.Fatalf("receipt not final after %v: %s", limit, r.Body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL, as a crash would.
func (h *harnest) kill(t *testing.T) {
	t.Helper()
	h.signal(syscall.SIGKILL)
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("harnest did not exit within 10s of SIGKILL")
	}
}

// openEvents opens GET path (an events stream); headers are key, value
// pairs.
func (h *harnest) openEvents(t *testing.T, path string, headers ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", path, err)
	}
	s := &sseStream{resp: resp, frames: make(chan sseFrame, 64), cancel: cancel}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: status %d: %s", path, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("GET %s: Content-Type %q, want text/event-stream", path, ct)
	}
	go s.read(ctx)
	return s
}

// eventsPath is GET /responses/{id}/events?sessionId=[&after=].
func eventsPath(rid, sid string, after int) string {
	p := fmt.Sprintf("/responses/%s/events?sessionId=%s", rid, sid)
	if after >= 0 {
		p += "&after=" + strconv.Itoa(after)
	}
	return p
}

// frameSeq is a frame's sequence; it fails unless the id: line and the
// data's "sequence" agree.
func frameSeq(t *testing.T, f sseFrame) int {
	t.Helper()
	seq, ok := f.Data["sequence"].(float64)
	if !ok || f.ID != strconv.Itoa(int(seq)) {
		t.Fatalf("frame id %q and sequence %v disagree: %s", f.ID, f.Data["sequence"], f.Raw)
	}
	return int(seq)
}

// mustBeConsecutive fails unless the frames are numbered from, from+1, ...
func mustBeConsecutive(t *testing.T, frames []sseFrame, from int) {
	t.Helper()
	for i, f := range frames {
		if got := frameSeq(t, f); got != from+i {
			t.Fatalf("frame %d has sequence %d, want %d (frames %v)", i, got, from+i, eventNames(frames))
		}
	}
}

// textOf joins the frames' text deltas.
func textOf(frames []sseFrame) (string, int) {
	var b strings.Builder
	n := 0
	for _, f := range frames {
		if f.Event == "response.text.delta" {
			d, _ := f.Data["delta"].(string)
			b.WriteString(d)
			n++
		}
	}
	return b.String(), n
}

// framesOf returns the frames of one event type.
func framesOf(frames []sseFrame, event string) []sseFrame {
	var out []sseFrame
	for _, f := range frames {
		if f.Event == event {
			out = append(out, f)
		}
	}
	return out
}

// indexOf is the position of the first frame of event, or -1.
func indexOf(frames []sseFrame, event string) int {
	for i, f := range frames {
		if f.Event == event {
			return i
		}
	}
	return -1
}

// mustEndCompleted checks a whole stream: response.created first,
// response.completed last with status, consecutive sequences from 0.
func mustEndCompleted(t *testing.T, frames []sseFrame, status string) map[string]any {
	t.Helper()
	names := eventNames(frames)
	if len(frames) < 2 || names[0] != "response.created" || names[len(names)-1] != "response.completed" {
		t.Fatalf("frames %v, want response.created ... response.completed", names)
	}
	mustBeConsecutive(t, frames, 0)
	last := frames[len(frames)-1].Data
	if last["status"] != status {
		t.Fatalf("response.completed has status %v, want %s: %s", last["status"], status, frames[len(frames)-1].Raw)
	}
	return last
}

// ---------------------------------------------------------------------------
// The example workers

func TestWorkersEndToEnd(t *testing.T) {
	t.Parallel()
	// Approval expiry is not tested here: no config key sets the approval
	// TTL (runtime.Options.ApprovalTTL, 15 minutes by default), so it is
	// covered in-process by neutral's TestApprovalExpires.
	for _, w := range []struct{ folder, program string }{
		{"worker-python", "python3"},
		{"worker-node", "node"},
	} {
		t.Run(w.folder, func(t *testing.T) {
			t.Parallel()
			needProgram(t, w.program)
			h := startHarnest(t, workerFolder(t, w.folder), nil)
			exerciseWorker(t, h, "example-"+w.folder)
			h.mustStop(t)
		})
	}
	t.Run("crash and restart", testWorkerCrash)
}

// exerciseWorker drives one of the example workers (docs/worker-protocol.md)
// through every kind of turn it knows.
func exerciseWorker(t *testing.T, h *harnest, framework string) {
	var sid string

	t.Run("streaming answer", func(t *testing.T) {
		const input = "hello there my good friend"
		frames := h.openStream(t, `{"input":"`+input+`","stream":true}`).rest(t, 20*time.Second)
		last := mustEndCompleted(t, frames, "completed")
		text, n := textOf(frames)
		if n < 2 || text != "You said: "+input {
			t.Fatalf("%d text deltas making %q, want several making %q (frames %v)", n, text, "You said: "+input, eventNames(frames))
		}
		if last["outputText"] != text {
			t.Fatalf("outputText %q, want the streamed text %q", last["outputText"], text)
		}
		thinking := framesOf(frames, "response.thinking.delta")
		if len(thinking) != 1 || thinking[0].Data["delta"] != "Reading the message." {
			t.Fatalf("thinking frames %v, want one \"Reading the message.\"", thinking)
		}
		state := framesOf(frames, "response.state_delta")
		if len(state) != 1 || fmt.Sprint(state[0].Data["delta"]) != "map[turns:1]" {
			t.Fatalf("state frames %v, want one with delta {\"turns\":1}", state)
		}
		meta := framesOf(frames, "response.agent_metadata")
		if len(meta) != 1 || meta[0].Data["framework"] != framework {
			t.Fatalf("metadata frames %v, want one with framework %s", meta, framework)
		}
		sid, _ = last["sessionId"].(string)
	})
	if sid == "" {
		t.FailNow()
	}

	t.Run("tool call", func(t *testing.T) {
		const input = "look it up with the tool"
		frames := h.openStream(t, `{"input":"`+input+`","sessionId":"`+sid+`","stream":true}`).rest(t, 20*time.Second)
		last := mustEndCompleted(t, frames, "completed")
		calls, results := framesOf(frames, "response.tool_call"), framesOf(frames, "response.tool_result")
		if len(calls) != 1 || len(results) != 1 {
			t.Fatalf("frames %v, want one tool call and one tool result", eventNames(frames))
		}
		call, result := calls[0].Data, results[0].Data
		wantID := "call_lookup_" + fmt.Sprint(last["responseId"])
		if call["id"] != wantID || call["name"] != "lookup" || fmt.Sprint(call["arguments"]) != "map[query:"+input+"]" {
			t.Fatalf("tool call %s", calls[0].Raw)
		}
		if result["callId"] != wantID || result["name"] != "lookup" || fmt.Sprint(result["output"]) != "map[entries:3]" {
			t.Fatalf("tool result %s", results[0].Raw)
		}
		if indexOf(frames, "response.tool_call") > indexOf(frames, "response.tool_result") ||
			indexOf(frames, "response.tool_result") > indexOf(frames, "response.text.delta") {
			t.Fatalf("frames %v, want tool call, tool result, then text", eventNames(frames))
		}
		if want := "You said: " + input + " The lookup found 3 entries."; last["outputText"] != want {
			t.Fatalf("outputText %q, want %q", last["outputText"], want)
		}
		// The worker counts the session's turns in its state.
		state := framesOf(frames, "response.state_delta")
		if len(state) != 1 || fmt.Sprint(state[0].Data["delta"]) != "map[turns:2]" {
			t.Fatalf("state frames %v, want turns 2 on the session's second turn", state)
		}
		sess := h.get(t, "/sessions/"+sid)
		mustStatus(t, sess, http.StatusOK)
		if got := fmt.Sprint(sess.JSON(t)["state"]); got != "map[turns:2]" {
			t.Fatalf("session state %s, want {\"turns\":2}", sess.Body)
		}
	})

	t.Run("approve", func(t *testing.T) {
		const input = "please approve this reply"
		r := h.post(t, "/responses", `{"input":"`+input+`"}`)
		v, action := pendingAction(t, r, "human_approval")
		if action["action"] != "send_reply" || action["message"] != "Send the reply to the user?" || action["expiresAt"] == nil {
			t.Fatalf("required action %v", action)
		}
		if got := h.get(t, receiptPath(v)); !bytes.Equal(got.Body, r.Body) {
			t.Fatalf("receipt while waiting %s, want %s", got.Body, r.Body)
		}
		aid := action["id"].(string)
		done := h.post(t, "/approvals/"+aid, `{"decision":"approve"}`)
		final := completed(t, done)
		if final["id"] != v["id"] || final["approvalId"] != aid || final["outputText"] != "You said: "+input {
			t.Fatalf("after approval %s", done.Body)
		}
		if got := h.get(t, receiptPath(v)); !bytes.Equal(got.Body, done.Body) {
			t.Fatalf("receipt %s differs from the approval's answer %s", got.Body, done.Body)
		}
	})

	t.Run("deny", func(t *testing.T) {
		r := h.post(t, "/responses", `{"input":"approve this one too"}`)
		v, action := pendingAction(t, r, "human_approval")
		aid := action["id"].(string)
		d := h.post(t, "/approvals/"+aid, `{"decision":"deny"}`)
		mustStatus(t, d, http.StatusOK)
		if got := d.JSON(t); got["id"] != aid || got["status"] != "denied" || len(got) != 2 {
			t.Fatalf("deny answer %s, want {\"id\":%q,\"status\":\"denied\"}", d.Body, aid)
		}
		receipt, rv := h.waitReceipt(t, v, 10*time.Second)
		if rv["status"] != "denied" || rv["approvalId"] != aid || rv["outputText"] != "" {
			t.Fatalf("receipt after the denial %s", receipt.Body)
		}
		// The session is free again.
		h.completeResponse(t, `{"input":"after the denial","sessionId":"`+v["sessionId"].(string)+`"}`)
	})

	t.Run("client tool", func(t *testing.T) {
		const input = "ask where I am"
		r := h.post(t, "/responses", `{"input":"`+input+`"}`)
		_, action := pendingAction(t, r, "client_tool")
		if action["name"] != "get_location" {
			t.Fatalf("required action %v", action)
		}
		tid := action["id"].(string)
		done := h.post(t, "/client-tools/"+tid, `{"output":"Paris"}`)
		final := completed(t, done)
		if final["clientToolId"] != tid || final["outputText"] != "You said: "+input+" You are in Paris." {
			t.Fatalf("after the client tool %s", done.Body)
		}
	})

	t.Run("approval then client tool", func(t *testing.T) {
		const input = "approve and then ask where I am"
		first := h.post(t, "/responses", `{"input":"`+input+`"}`)
		v, approval := pendingAction(t, first, "human_approval")
		second := h.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`)
		v2, tool := pendingAction(t, second, "client_tool")
		if v2["id"] != v["id"] || tool["name"] != "get_location" {
			t.Fatalf("after approval %s", second.Body)
		}
		tid := tool["id"].(string)
		done := h.post(t, "/client-tools/"+tid, `{"output":{"city":"Oslo"}}`)
		final := completed(t, done)
		want := "You said: " + input + ` You are in {"city":"Oslo"}.`
		if final["id"] != v["id"] || final["clientToolId"] != tid || final["outputText"] != want {
			t.Fatalf("final %s, want outputText %q", done.Body, want)
		}
		// The event log holds both requests, then the answer, in order.
		frames := h.openEvents(t, eventsPath(v["id"].(string), v["sessionId"].(string), -1)).rest(t, 10*time.Second)
		mustEndCompleted(t, frames, "completed")
		a, c, txt := indexOf(frames, "approval.requested"), indexOf(frames, "client_tool.requested"), indexOf(frames, "response.text.delta")
		if a < 0 || c < a || txt < c {
			t.Fatalf("replayed frames %v, want approval.requested, client_tool.requested, then text", eventNames(frames))
		}
		if n := len(framesOf(frames, "response.completed")); n != 3 {
			t.Fatalf("replay has %d response.completed frames, want 3 (two boundaries and the end): %v", n, eventNames(frames))
		}
	})
}

// crashMarker is what testdata/crash-worker writes to stderr before it
// exits mid-turn.
const crashMarker = "CRASH-WORKER-STDERR-7f3a"

var pidRE = regexp.MustCompile(`^pid (\d+): `)

// testWorkerCrash serves testdata/crash-worker (one Python worker that exits
// mid-turn on "crash"): the turn fails without leaking stderr, and the next
// turn runs on a restarted worker.
func testWorkerCrash(t *testing.T) {
	t.Parallel()
	needProgram(t, "python3")
	h := startHarnest(t, copyFolder(t, "testdata/crash-worker"), nil)
	pidOf := func(v map[string]any) string {
		t.Helper()
		m := pidRE.FindStringSubmatch(fmt.Sprint(v["outputText"]))
		if m == nil {
			t.Fatalf("outputText %q does not start with the worker's pid", v["outputText"])
		}
		return m[1]
	}
	noMarker := func(what string, b []byte) {
		t.Helper()
		if bytes.Contains(b, []byte(crashMarker)) || bytes.Contains(b, []byte("exit status")) {
			t.Fatalf("%s leaks the worker's stderr or exit: %s", what, b)
		}
	}

	_, before := h.completeResponse(t, `{"input":"hello"}`)
	pid := pidOf(before)
	sid := before["sessionId"].(string)

	// A JSON turn: 500 with the generic failure.
	r := h.post(t, "/responses", `{"input":"please crash now","sessionId":"`+sid+`"}`)
	mustStatus(t, r, http.StatusInternalServerError)
	noMarker("the 500 body", r.Body)
	if code := r.JSON(t)["code"]; code != "invocation_failed" {
		t.Fatalf("error code %v, want invocation_failed: %s", code, r.Body)
	}
	ids := map[string]any{"id": r.Header.Get("Harnest-Response-Id"), "sessionId": sid}
	receipt, rv := h.waitReceipt(t, ids, 10*time.Second)
	noMarker("the receipt", receipt.Body)
	if rv["status"] != "failed" || errorCode(rv) != "invocation_failed" {
		t.Fatalf("receipt %s, want failed with invocation_failed", receipt.Body)
	}
	events := h.openEvents(t, eventsPath(ids["id"].(string), sid, -1)).rest(t, 10*time.Second)
	for _, f := range events {
		noMarker("the event log", []byte(f.Raw))
	}

	// A streaming turn on the restarted worker crashes the same way.
	frames := h.openStream(t, `{"input":"crash while streaming","sessionId":"`+sid+`","stream":true}`).rest(t, 20*time.Second)
	for _, f := range frames {
		noMarker("the stream", []byte(f.Raw))
	}
	names := eventNames(frames)
	if len(frames) < 2 || names[0] != "response.created" {
		t.Fatalf("crashing stream %v", names)
	}
	end := frames[len(frames)-1]
	if end.Event != "error" && end.Data["status"] != "failed" {
		t.Fatalf("crashing stream ends with %s, want an error or a failed response", end.Raw)
	}

	// The next turn in the same session runs on a new worker process.
	_, after := h.completeResponse(t, `{"input":"are you back","sessionId":"`+sid+`"}`)
	if pidOf(after) == pid {
		t.Fatalf("the turn after the crash ran on the crashed worker (pid %s)", pid)
	}
	if want := "pid " + pidOf(after) + ": You said: are you back"; after["outputText"] != want {
		t.Fatalf("outputText %q, want %q", after["outputText"], want)
	}

	// The marker did reach the server's log (so the checks above mean
	// something).
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(h.stderr.String(), crashMarker) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker's stderr never reached the server log:\n%s", h.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("crashing stream: %v, ending with %q", names, end.Raw)
	h.mustStop(t)
}

// ---------------------------------------------------------------------------
// Two replicas on one real Redis

func TestApprovalThroughAnotherReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := agentFolder(t, "approval: send", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"reply to bob"}`)
	v, action := pendingAction(t, r, "human_approval")
	if action["action"] != "send" {
		t.Fatalf("required action %v", action)
	}
	if got := b.get(t, receiptPath(v)); !bytes.Equal(got.Body, r.Body) {
		t.Fatalf("waiting receipt on B %s, want A's answer %s", got.Body, r.Body)
	}

	aid := action["id"].(string)
	done := b.post(t, "/approvals/"+aid, `{"decision":"approve"}`)
	final := completed(t, done)
	if final["id"] != v["id"] || final["approvalId"] != aid || final["outputText"] != "Echo: reply to bob" {
		t.Fatalf("approval through B: %s", done.Body)
	}
	onA := a.get(t, receiptPath(v))
	mustStatus(t, onA, http.StatusOK)
	if !bytes.Equal(onA.Body, done.Body) {
		t.Fatalf("receipt on A differs from B's answer:\nA %s\nB %s", onA.Body, done.Body)
	}
	mustStatus(t, a.post(t, "/approvals/"+aid, `{"decision":"deny"}`), http.StatusConflict)
	a.mustStop(t)
	b.mustStop(t)
}

func TestBackgroundEventsResumeOnAnotherReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := agentFolder(t, "delayMs: 200", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)

	const input = "one two three four five six seven eight"
	s := a.openStream(t, `{"input":"`+input+`","stream":true,"background":true}`)
	rid, sid := s.resp.Header.Get("Harnest-Response-Id"), s.resp.Header.Get("Harnest-Session-Id")
	var seen []sseFrame
	for {
		f, ok := s.next(t, 10*time.Second)
		if !ok {
			t.Fatalf("stream on A ended before a text delta: %v", eventNames(seen))
		}
		seen = append(seen, f)
		if f.Event == "response.text.delta" {
			break
		}
	}
	mustBeConsecutive(t, seen, 0)
	lastSeq := frameSeq(t, seen[len(seen)-1])
	s.cancel()
	s.resp.Body.Close()

	// Dropping a background stream does not cancel the response.
	ids := map[string]any{"id": rid, "sessionId": sid}
	now := b.get(t, receiptPath(ids))
	mustStatus(t, now, http.StatusOK)
	status := now.JSON(t)["status"]
	if status != "in_progress" && status != "completed" {
		t.Fatalf("receipt after the dropped stream %s", now.Body)
	}
	t.Logf("receipt on B right after the drop: %v (in_progress means B follows live)", status)

	rest := b.openEvents(t, eventsPath(rid, sid, lastSeq)).rest(t, 15*time.Second)
	if len(rest) == 0 {
		t.Fatal("no frames on B after the last seen one")
	}
	mustBeConsecutive(t, rest, lastSeq+1)
	end := rest[len(rest)-1]
	if end.Event != "response.completed" || end.Data["status"] != "completed" {
		t.Fatalf("resumed stream ends with %s", end.Raw)
	}
	head, _ := textOf(seen)
	tail, _ := textOf(rest)
	want := "Echo: " + input
	if head+tail != want || end.Data["outputText"] != want {
		t.Fatalf("text %q + %q (outputText %v), want %q", head, tail, end.Data["outputText"], want)
	}

	onA, va := a.waitReceipt(t, ids, 5*time.Second)
	onB, _ := b.waitReceipt(t, ids, 5*time.Second)
	if va["status"] != "completed" || va["outputText"] != want || !bytes.Equal(onA.Body, onB.Body) {
		t.Fatalf("receipts:\nA %s\nB %s", onA.Body, onB.Body)
	}

	// Last-Event-ID works like after, and a finished response replays.
	replay := a.openEvents(t, eventsPath(rid, sid, -1), "Last-Event-ID", strconv.Itoa(lastSeq)).rest(t, 10*time.Second)
	if len(replay) != len(rest) {
		t.Fatalf("Last-Event-ID replay %v, want %v", eventNames(replay), eventNames(rest))
	}
	for i := range replay {
		if replay[i].Raw != rest[i].Raw {
			t.Fatalf("replayed frame %d %q, want %q", i, replay[i].Raw, rest[i].Raw)
		}
	}
	a.mustStop(t)
	b.mustStop(t)
}

func TestCancelThroughAnotherReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	store := prefixed(t)
	// A runs slowly; B, on the same Redis and prefix, answers at once so
	// that the follow-up turn is quick.
	a := startHarnest(t, agentFolder(t, "delayMs: 2000", store), nil, "--redis-url", url)
	b := startHarnest(t, agentFolder(t, "", store), nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"take your time please","background":true}`)
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "in_progress" {
		t.Fatalf("background answer %s", r.Body)
	}
	rid, sid := v["id"].(string), v["sessionId"].(string)
	mustStatus(t, b.post(t, "/responses", `{"input":"too soon","sessionId":"`+sid+`"}`), http.StatusConflict)

	start := time.Now()
	c := b.post(t, "/responses/"+rid+"/cancel?sessionId="+sid, "")
	took := time.Since(start)
	mustStatus(t, c, http.StatusOK)
	cv := c.JSON(t)
	if cv["status"] != "cancelled" || errorCode(cv) != "cancelled" {
		t.Fatalf("cancel through B: %s", c.Body)
	}
	t.Logf("cancel through B took %v", took)
	if got := a.get(t, receiptPath(v)); !bytes.Equal(got.Body, c.Body) {
		t.Fatalf("receipt on A %s, want the cancel's answer %s", got.Body, c.Body)
	}

	_, next := b.completeResponse(t, `{"input":"and now quickly","sessionId":"`+sid+`"}`)
	if next["outputText"] != "Echo: and now quickly" {
		t.Fatalf("follow-up %v", next)
	}
	a.mustStop(t)
	b.mustStop(t)
}

func TestKilledReplicaFailsItsRun(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	// The default lease (30 s): the run is failed once the replicas'
	// liveness TTL (3 s) shows A gone, not when its lease lapses.
	store := prefixed(t)
	a := startHarnest(t, agentFolder(t, "delayMs: 5000", store), nil, "--redis-url", url)
	b := startHarnest(t, agentFolder(t, "", store), nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"a long job","background":true}`)
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "in_progress" {
		t.Fatalf("background answer %s", r.Body)
	}
	if got := b.get(t, receiptPath(v)).JSON(t)["status"]; got != "in_progress" {
		t.Fatalf("receipt on B %v, want in_progress", got)
	}

	a.kill(t)
	start := time.Now()
	receipt, rv := b.waitReceipt(t, v, 15*time.Second)
	took := time.Since(start)
	if rv["status"] != "failed" || errorCode(rv) != "replica_lost" {
		t.Fatalf("receipt after A was killed: %s", receipt.Body)
	}
	t.Logf("the killed replica's run failed on B %v after SIGKILL (lease 30 s, liveness 3 s)", took.Round(time.Millisecond))

	_, next := b.completeResponse(t, `{"input":"after the crash","sessionId":"`+v["sessionId"].(string)+`"}`)
	if next["outputText"] != "Echo: after the crash" {
		t.Fatalf("follow-up %v", next)
	}
	b.mustStop(t)
}

// An answer to an approval whose replica was killed is refused at once
// with 409 execution_unavailable (not a 500 once the lease lapses), and the
// killed replica's response still ends as replica_lost.
func TestAnswerAfterTheHolderWasKilled(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := agentFolder(t, "approval: send", prefixed(t)+"  leaseSeconds: 2\n")
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"reply to bob"}`)
	v, action := pendingAction(t, r, "human_approval")
	a.kill(t)

	start := time.Now()
	late := b.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`)
	took := time.Since(start)
	mustStatus(t, late, http.StatusConflict)
	if code := late.JSON(t)["code"]; code != "execution_unavailable" {
		t.Fatalf("late answer %s, want code execution_unavailable", late.Body)
	}
	if took > 3*time.Second {
		t.Fatalf("the refusal took %v; it must not wait for the lease", took)
	}
	t.Logf("answer to a killed replica's approval refused in %v", took.Round(time.Millisecond))
	receipt, rv := b.waitReceipt(t, v, 15*time.Second)
	if rv["status"] != "failed" || errorCode(rv) != "replica_lost" {
		t.Fatalf("receipt after A was killed: %s", receipt.Body)
	}
	b.mustStop(t)
}
