package main

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Resume points of the a2a, relay and router backends (#31) with real
// binaries on one real Redis: two replicas, the one running a background
// turn SIGKILLed while the outside party works on it; the other claims the
// turn and re-attaches to what the lost attempt started instead of asking
// again: the remote A2A agent receives one message, the outside agent one
// inbox item, the router asks its rung once. A follower on the survivor
// sees one unbroken stream with one retraction and one response.completed.

// slowPeer is a remote A2A agent (a2a-go's server, streaming) whose every
// task works until release is closed, then completes with "slow done".
type slowPeer struct {
	URL     string
	started chan a2a.TaskID
	release chan struct{}

	mu       sync.Mutex
	messages int
}

func startSlowPeer(t *testing.T) *slowPeer {
	t.Helper()
	p := &slowPeer{started: make(chan a2a.TaskID, 4), release: make(chan struct{})}
	hs := httptest.NewUnstartedServer(nil)
	p.URL = "http://" + hs.Listener.Addr().String()
	card := &a2a.AgentCard{
		Name: "slow-peer", Description: "A slow test peer.", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: p.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "slow", Name: "Slow", Description: "Takes its time.", Tags: []string{"test"}}},
	}
	h := a2asrv.NewHandler(p, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(func() {
		p.finish()
		hs.CloseClientConnections()
		hs.Close()
	})
	return p
}

// finish lets every task complete.
func (p *slowPeer) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

func (p *slowPeer) received() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.messages
}

func (p *slowPeer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		p.mu.Lock()
		p.messages++
		p.mu.Unlock()
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		working := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("working on it"))
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, working), nil) {
			return
		}
		p.started <- ec.TaskID
		select {
		case <-ctx.Done():
			return
		case <-p.release:
		case <-time.After(60 * time.Second):
		}
		if yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("slow done")), nil) {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

func (p *slowPeer) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// backendFolder is examples/hello with its echo backend replaced by
// backend (YAML flow or block text at the backend's indentation), and
// extra appended.
func backendFolder(t *testing.T, backend, extra string) string {
	t.Helper()
	dir := agentFolder(t, "", prefixed(t)+extra)
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "echo: {}", backend, 1)
	if cfg == string(b) {
		t.Fatalf("no echo backend to replace in %s", path)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// followToEnd reads a follower's stream to its end; at the first
// response.retracted it calls onRetracted (once).
func followToEnd(t *testing.T, stream *sseStream, frames []sseFrame, onRetracted func()) []sseFrame {
	t.Helper()
	for {
		f, ok := stream.next(t, 40*time.Second)
		if !ok {
			return frames
		}
		frames = append(frames, f)
		if f.Event == "response.retracted" && onRetracted != nil {
			onRetracted()
			onRetracted = nil
		}
	}
}

// mustBeOneClaimedTurn checks a follower's frames: contiguous from 0, one
// response.retracted, one response.completed, last.
func mustBeOneClaimedTurn(t *testing.T, frames []sseFrame) {
	t.Helper()
	mustBeConsecutive(t, frames, 0)
	names := eventNames(frames)
	if count(names, "response.retracted") != 1 || count(names, "response.completed") != 1 || names[len(names)-1] != "response.completed" {
		t.Fatalf("events %v: want one response.retracted and one response.completed, last", names)
	}
}

// A background turn of a remote A2A agent whose replica is SIGKILLed while
// the remote task works goes on on the other replica, re-attached to the
// same remote task: the remote receives one message, and its answer
// completes the turn.
func TestKilledA2ATurnReattachesToItsTask(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	peer := startSlowPeer(t)
	dir := backendFolder(t, `a2a: {url: "`+peer.URL+`", allowHosts: ["127.0.0.1"]}`, "")
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"take your time","background":true}`)
	mustStatus(t, r, http.StatusOK)
	ids := r.JSON(t)
	stream := b.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1))
	var frames []sseFrame
	for {
		// The working status follows the task's first event, after which
		// the task is recorded as the resume point.
		f, ok := stream.next(t, 20*time.Second)
		if !ok {
			t.Fatalf("the follow ended before the remote worked: %v", eventNames(frames))
		}
		frames = append(frames, f)
		if f.Event == "response.agent_activity" && f.Data["activity"] == "working on it" {
			break
		}
	}
	a.kill(t)
	killed := time.Now()
	frames = followToEnd(t, stream, frames, func() {
		t.Logf("SIGKILL to the re-attached attempt's first event: %v", time.Since(killed).Round(time.Millisecond))
		peer.finish()
	})
	mustBeOneClaimedTurn(t, frames)
	_, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "slow done" {
		t.Fatalf("receipt %v", rv)
	}
	if n := peer.received(); n != 1 {
		t.Fatalf("the remote received %d messages, want 1", n)
	}
	mustHoldTurnOnce(t, b, ids["sessionId"].(string))
	b.mustStop(t)
}

// A routed background turn whose chosen harness (a slow remote A2A agent)
// works when its replica is SIGKILLed goes on on the other replica with
// the same rung, re-attached to the same remote task (the harness's own
// resume point, scoped to its rung): the remote receives one message, the
// house is never asked, and the router writes one receipt.
func TestKilledRoutedTurnAsksTheSameRung(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	peer := startSlowPeer(t)
	backend := `router:
      harnesses:
        home: {echo: {}}
        remote: {a2a: {url: "` + peer.URL + `", allowHosts: ["127.0.0.1"]}, waitMs: 60000}
      house: home
      choice: remote`
	dir := backendFolder(t, backend, "")
	cfgPath := filepath.Join(dir, "config.yaml")
	cfg, _ := os.ReadFile(cfgPath)
	mustWrite(t, cfgPath, strings.Replace(string(cfg), "\nspec:\n", "\nspec:\n  onReplicaLoss: rerun\n", 1))
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url)

	r := a.post(t, "/responses", `{"input":"route this","background":true}`)
	mustStatus(t, r, http.StatusOK)
	ids := r.JSON(t)
	stream := b.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1))
	select {
	case <-peer.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the remote task did not start")
	}
	// The router holds the harness's events back until its answer starts:
	// give the remote task's resume point (written as the task's first
	// event arrives) a moment.
	time.Sleep(time.Second)
	a.kill(t)
	frames := followToEnd(t, stream, nil, peer.finish)
	mustBeOneClaimedTurn(t, frames)
	_, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "slow done" {
		t.Fatalf("receipt %v", rv)
	}
	if n := peer.received(); n != 1 {
		t.Fatalf("the remote received %d messages, want 1", n)
	}
	rec := b.get(t, "/owner/router/receipts")
	mustStatus(t, rec, http.StatusOK)
	var page struct {
		Receipts []struct {
			ResponseID string `json:"responseId"`
			AnsweredBy string `json:"answeredBy"`
			Rungs      []struct {
				Name string `json:"name"`
			} `json:"rungs"`
		} `json:"receipts"`
	}
	if err := json.Unmarshal(rec.Body, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Receipts) != 1 || page.Receipts[0].AnsweredBy != "remote" || len(page.Receipts[0].Rungs) != 1 {
		t.Fatalf("router receipts %s: want one, answered by remote after one rung", rec.Body)
	}
	b.mustStop(t)
}

// A background relay turn whose replica is SIGKILLed while the outside
// agent (a test client long-polling the inbox) thinks goes on on the other
// replica, waiting for the reply to the same inbox item: the outside agent
// gets one item, and its reply completes the turn.
func TestKilledRelayTurnWaitsForTheSameItem(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := relayFolder(t, true)
	b := startHarnest(t, dir, relayEnv(), "--redis-url", url)
	a := startHarnest(t, dir, relayEnv(), "--redis-url", url)
	owner := []string{"Authorization", "Bearer " + relayE2EOwnerToken}

	pr := b.post(t, "/owner/outside-agents/pairings", `{"name":"My CLI","kind":"cli"}`, owner...)
	mustStatus(t, pr, http.StatusCreated)
	code := pr.JSON(t)["code"].(string)
	ex := b.post(t, "/api/outside-agents/v1/pairings/exchange", `{"code":"`+code+`","card":{"name":"My CLI","kind":"cli"}}`)
	mustStatus(t, ex, http.StatusCreated)
	participant := []string{"Authorization", "Bearer " + ex.JSON(t)["token"].(string)}

	r := a.post(t, "/responses", `{"input":"what should I do?","background":true}`, owner...)
	mustStatus(t, r, http.StatusOK)
	ids := r.JSON(t)
	stream := b.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1), owner...)
	seen := map[string]bool{}
	poll := func(wait string) {
		t.Helper()
		in := b.get(t, "/api/outside-agents/v1/inbox?wait="+wait, participant...)
		mustStatus(t, in, http.StatusOK)
		var v struct {
			Items []struct {
				RelayID string `json:"relay_id"`
				Text    string `json:"text"`
			} `json:"items"`
		}
		if err := json.Unmarshal(in.Body, &v); err != nil {
			t.Fatal(err)
		}
		for _, it := range v.Items {
			if it.Text != "what should I do?" {
				t.Fatalf("inbox item %+v", it)
			}
			seen[it.RelayID] = true
		}
	}
	poll("10")
	if len(seen) != 1 {
		t.Fatalf("the outside agent got %d items, want 1", len(seen))
	}
	// The item is the resume point once enqueued; the turn waits on it.
	time.Sleep(300 * time.Millisecond)
	a.kill(t)
	var frames []sseFrame
	frames = followToEnd(t, stream, frames, func() {
		poll("1") // the claimer waits for the same item: nothing new
		if len(seen) != 1 {
			t.Errorf("the outside agent got %d items after the claim, want the one", len(seen))
		}
		for id := range seen {
			mustStatus(t, b.post(t, "/api/outside-agents/v1/replies", `{"relay_id":"`+id+`","text":"Ship it."}`, participant...), http.StatusOK)
		}
	})
	mustBeOneClaimedTurn(t, frames)
	rv := b.get(t, receiptPath(ids), owner...)
	mustStatus(t, rv, http.StatusOK)
	if v := rv.JSON(t); v["status"] != "completed" || v["outputText"] != "Ship it." {
		t.Fatalf("receipt %s", rv.Body)
	}
	b.mustStop(t)
}

// Hand-offs spend no attempt (store.Attempts): with store.maxAttempts 1
// (the first run only), a background turn handed off twice (its replica
// stopped, then the one that took it over) completes on the third replica
// as the same attempt 1 (at epoch 3), where an epoch-counted budget failed
// it replica_lost at the first hand-off.
func TestHandOffsSpendNoAttempt(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 1000", prefixed(t)+"  maxAttempts: 1\n")
	grace := []string{"--redis-url", url, "--shutdown-grace", "1s"}
	a := startHarnest(t, dir, nil, grace...)
	others := []*harnest{startHarnest(t, dir, nil, grace...), startHarnest(t, dir, nil, grace...)}
	ids, _, _ := startDurable(t, a, others[0])
	a.mustStop(t)
	// One of the others took the turn over: stop it too.
	var holder, survivor *harnest
	for deadline := time.Now().Add(10 * time.Second); holder == nil; time.Sleep(25 * time.Millisecond) {
		for i, h := range others {
			if strings.Contains(h.stderr.String(), "running again the response") {
				holder, survivor = h, others[1-i]
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no replica took the handed-off turn over within 10 s")
		}
	}
	holder.mustStop(t)
	receipt, rv := survivor.waitReceipt(t, ids, 20*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "Echo: "+durableInput {
		t.Fatalf("receipt %s", receipt.Body)
	}
	frames := survivor.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1)).rest(t, 10*time.Second)
	mustBeConsecutive(t, frames, 0)
	var attempts []string
	for _, f := range frames {
		if f.Event == "response.agent_activity" && f.Data["activity"] == "attempt" {
			attempts = append(attempts, f.Data["code"].(string))
		}
	}
	names := eventNames(frames)
	// The holder may be stopped before its attempt logged anything: its
	// own retraction and activity are then not in the log.
	if count(names, "response.retracted") < 1 || count(names, "response.completed") != 1 || len(attempts) < 1 ||
		strings.Trim(strings.Join(attempts, ","), "1,") != "" {
		t.Fatalf("events %v, attempts %v: want every hand-off as attempt 1, one completion", names, attempts)
	}
	if !strings.Contains(holder.stderr.String(), "handed off running responses") ||
		!strings.Contains(survivor.stderr.String(), "attempt=1 epoch=3") {
		t.Fatalf("want two hand-offs, the last run as attempt 1 at epoch 3:\nholder:\n%s\nsurvivor:\n%s", holder.stderr.String(), survivor.stderr.String())
	}
	mustHoldTurnOnce(t, survivor, ids["sessionId"].(string))
	survivor.mustStop(t)
}
