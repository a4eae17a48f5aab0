package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Workers and exec programs on replica loss (#31), with real binaries on
// one real redis-server: the replica running a background turn is
// SIGKILLed mid-turn; the other replica runs it again. A worker that
// resumes gets attempt 2 and its last checkpoint, and only what it streamed
// after that checkpoint is retracted; an exec turn program of an agent with
// onReplicaLoss: rerun runs again from its input with HARNEST_ATTEMPT=2.

// execFolder is examples/hello with its echo backend replaced by exec
// (flow YAML), with spec lines and the test's store prefix.
func execFolder(t *testing.T, exec, specLines string) string {
	t.Helper()
	dir := agentFolder(t, "", prefixed(t))
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "echo: {}", "exec: "+exec, 1)
	cfg = strings.Replace(cfg, "\nspec:\n", "\nspec:\n"+specLines, 1)
	if !strings.Contains(cfg, "exec: ") {
		t.Fatalf("no echo backend to replace in %s", path)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// resumingWorkerJS is a worker on the adapters' protocol core that
// resumes: it notes each turn's attempt and checkpoint in $TURNS, says
// "Step one. " and checkpoints {"step":1}, then streams "two " slowly on a
// first attempt (its replica is killed meanwhile) and three times at once
// on a later one.
const resumingWorkerJS = `import { appendFileSync } from "node:fs";
import { serve } from "WORKER_JS";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
serve(async (turn, out) => {
  appendFileSync(process.env.TURNS, JSON.stringify({ attempt: turn.attempt, checkpoint: turn.checkpoint }) + "\n");
  if (!turn.checkpoint) {
    out.text("Step one. ");
    out.checkpoint({ step: 1 });
  }
  const slow = turn.attempt === 1;
  for (let i = 0; i < (slow ? 100 : 3) && !out.signal.aborted; i++) {
    out.text("two ");
    if (slow) await sleep(100);
  }
});
`

// followKilled starts a background turn of input on a, follows it on b from the
// start and SIGKILLs a at the first text delta for which kill is true; it
// returns the turn's ids and every frame b saw.
func followKilled(t *testing.T, a, b *harnest, input string, kill func(sseFrame) bool) (map[string]any, []sseFrame) {
	t.Helper()
	r := a.post(t, "/responses", js(map[string]any{"input": input, "background": true}))
	mustStatus(t, r, http.StatusOK)
	ids := r.JSON(t)
	stream := b.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1))
	var frames []sseFrame
	for killed := false; ; {
		f, ok := stream.next(t, 30*time.Second)
		if !ok {
			break
		}
		frames = append(frames, f)
		if !killed && f.Event == "response.text.delta" && kill(f) {
			a.kill(t)
			killed = true
		}
	}
	if len(frames) == 0 {
		t.Fatal("the follower saw nothing")
	}
	return ids, frames
}

// mustBeOneRetraction checks a resumed turn's frames: contiguous from 0,
// one response.retracted (attempt 2) withdrawing from the frame after
// keptThrough (the last event of the lost attempt the turn keeps) to the
// one before it, then the attempt's activity, and one response.completed,
// last and completed.
func mustBeOneRetraction(t *testing.T, frames []sseFrame, keptThrough int) {
	t.Helper()
	mustBeConsecutive(t, frames, 0)
	names := eventNames(frames)
	if count(names, "response.retracted") != 1 || count(names, "response.completed") != 1 || names[len(names)-1] != "response.completed" {
		t.Fatalf("events %v: want one response.retracted and one response.completed, last", names)
	}
	at := slices.Index(names, "response.retracted")
	r, _ := frames[at].Data["retracted"].(map[string]any)
	if r["fromSequence"] != float64(keptThrough+1) || r["toSequence"] != float64(at-1) || r["attempt"] != float64(2) {
		t.Fatalf("retraction %s, want from %d to %d", frames[at].Raw, keptThrough+1, at-1)
	}
	if a := frames[at+1]; a.Event != "response.agent_activity" || a.Data["activity"] != "attempt" || a.Data["code"] != "2" {
		t.Fatalf("after the retraction: %s", a.Raw)
	}
	if status := frames[len(frames)-1].Data["status"]; status != "completed" {
		t.Fatalf("last event %s", frames[len(frames)-1].Raw)
	}
}

// A worker that resumes, on two replicas: its replica is SIGKILLed while
// it streams after its checkpoint. The survivor's worker gets attempt 2
// and the checkpoint; the follower sees one unbroken stream whose one
// retraction withdraws only what followed the checkpoint; receipt and
// transcript hold "Step one. " once.
func TestKilledWorkerTurnResumesFromItsCheckpoint(t *testing.T) {
	t.Parallel()
	needAdapterPackage(t, "@langchain/langgraph") // node and the adapters
	url := realRedis(t)
	core, err := filepath.Abs("../../adapters/node/worker.js")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	script := filepath.Join(work, "worker.mjs")
	mustWrite(t, script, strings.Replace(resumingWorkerJS, "WORKER_JS", "file://"+core, 1))
	turns := filepath.Join(work, "turns")
	dir := execFolder(t, `{command: ["node", "`+script+`"], mode: worker, resumes: true, env: {TURNS: "`+turns+`"}}`, "")
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url)

	ids, frames := followKilled(t, a, b, "go", func(f sseFrame) bool { return f.Data["delta"] == "two " })
	stepOne := slices.IndexFunc(frames, func(f sseFrame) bool { return f.Data["delta"] == "Step one. " })
	mustBeOneRetraction(t, frames, stepOne)
	receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "Step one. two two two " {
		t.Fatalf("receipt %s", receipt.Body)
	}
	mustHoldTurnOnce(t, b, ids["sessionId"].(string))

	got, err := os.ReadFile(turns)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"attempt":1,"checkpoint":null}` + "\n" + `{"attempt":2,"checkpoint":{"step":1}}` + "\n"; string(got) != want {
		t.Fatalf("the workers' turns:\n%s\nwant\n%s", got, want)
	}
	b.mustStop(t)
}

// An exec turn program of an agent with onReplicaLoss: rerun, on two
// replicas: its replica is SIGKILLed mid-turn; the survivor runs it again
// from its input with HARNEST_ATTEMPT=2, and the turn completes, held once.
func TestKilledExecTurnRunsAgainWithItsAttempt(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	runs := filepath.Join(t.TempDir(), "runs")
	program, _ := json.Marshal([]string{"/bin/sh", "-c",
		`echo "$HARNEST_ATTEMPT" >> "$0"; d=0; [ "$HARNEST_ATTEMPT" = 1 ] && d=0.3; for i in 1 2 3 4 5 6 7 8 9 10; do printf 'word '; sleep $d; done`, runs})
	dir := execFolder(t, `{command: `+string(program)+`}`, "  onReplicaLoss: rerun\n")
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url)

	ids, frames := followKilled(t, a, b, "go", func(sseFrame) bool { return true })
	mustBeOneRetraction(t, frames, 0) // nothing is kept: the program starts over
	receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != strings.Repeat("word ", 10) {
		t.Fatalf("receipt %s", receipt.Body)
	}
	mustHoldTurnOnce(t, b, ids["sessionId"].(string))
	if got, _ := os.ReadFile(runs); string(got) != "1\n2\n" {
		t.Fatalf("the program ran with HARNEST_ATTEMPT %q, want 1 then 2", got)
	}
	b.mustStop(t)
}

// The LangGraph example (its adapter checkpoints, its config says resumes)
// on two replicas: its replica is SIGKILLed while the model words its
// answer after the lookup tool ran. The survivor's adapter puts the graph's
// last checkpoint (after the tools node) into its own checkpointer and goes
// on from it: the tool is not run again, the follower's one retraction
// withdraws only the answer's words, and the answer is held once.
func TestKilledLangGraphTurnResumesFromTheGraphCheckpoint(t *testing.T) {
	t.Parallel()
	needLangGraph(t)
	url := realRedis(t)
	dir := graphFolder(t)
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const env = "HARNEST_FAKE_MODEL: ${HARNEST_FAKE_MODEL:-}\n"
	cfg := strings.Replace(string(b), env, env+"        HARNEST_FAKE_MODEL_DELAY_MS: \"400\"\n", 1)
	if cfg == string(b) || !strings.Contains(cfg, "resumes: true") {
		t.Fatalf("cannot pace the fake model, or the example does not resume:\n%s", b)
	}
	mustWrite(t, path, cfg)
	fake := []string{"HARNEST_FAKE_MODEL=1"}
	survivor := startHarnest(t, dir, fake, "--redis-url", url)
	lost := startHarnest(t, dir, fake, "--redis-url", url)

	ids, frames := followKilled(t, lost, survivor, "Please look up oslo", func(f sseFrame) bool { return f.Data["delta"] == "The " })
	result := slices.IndexFunc(frames, func(f sseFrame) bool { return f.Event == "response.tool_result" })
	mustBeOneRetraction(t, frames, result)
	names := eventNames(frames)
	if count(names, "response.tool_call") != 1 || count(names, "response.tool_result") != 1 {
		t.Fatalf("events %v: the tool step ran again", names)
	}
	receipt, rv := survivor.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "The lookup found 3 entries." {
		t.Fatalf("receipt %s", receipt.Body)
	}
	mustHoldTurnOnce(t, survivor, ids["sessionId"].(string))
	graphTurns(t, survivor, ids["sessionId"].(string), 1)
	survivor.mustStop(t)
}
