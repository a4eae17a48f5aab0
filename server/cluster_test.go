package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// clusterOwnerToken is the owner's bearer token in the relay replicas.
const clusterOwnerToken = "token-cluster-owner-0123456789"

// TestRedisCluster serves harnest from two replicas on one real
// three-master Redis Cluster: a turn started on one replica and continued
// on the other, an approval asked on one and answered on the other, and a
// relay round trip in which an outside agent pairs and polls on one
// replica while the turn runs on the other. Each part has its own pair of
// replicas (and key prefix) on the one cluster.
func TestRedisCluster(t *testing.T) {
	cluster := testutil.StartCluster(t)
	t.Run("Turn", func(t *testing.T) { clusterTurn(t, cluster.URL) })
	t.Run("Approval", func(t *testing.T) { clusterApproval(t, cluster.URL) })
	t.Run("Relay", func(t *testing.T) { clusterRelay(t, cluster.URL) })
}

// clusterTurn: a JSON turn on A whose receipt B reads byte for byte, a
// streamed follow-up turn on B, and the whole transcript read on A.
func clusterTurn(t *testing.T, url string) {
	replicas := servertest.Replicas(t, url, 2, servertest.Setup{})
	a, b := replicas[0], replicas[1]

	first := a.Post("/responses", `{"input":"hello cluster"}`)
	servertest.MustStatus(t, first, 200)
	env := first.JSON(t)
	rid, sid := env["id"].(string), env["sessionId"].(string)
	if env["status"] != "completed" || env["outputText"] != "Echo: hello cluster" {
		t.Fatalf("first turn on A: %s", first.Body)
	}
	if got := b.Get("/responses/" + rid + "?sessionId=" + sid); string(got.Body) != string(first.Body) {
		t.Fatalf("receipt on B %s, want the answer A gave %s", got.Body, first.Body)
	}

	frames, _ := b.Stream("/responses", `{"input":"again","stream":true,"sessionId":"`+sid+`"}`)
	last := frames[len(frames)-1]
	if last.Event != "response.completed" || last.Data["status"] != "completed" {
		t.Fatalf("streamed turn on B ended with %s", last.Raw)
	}

	msgs := a.Get("/sessions/" + sid + "/messages")
	servertest.MustStatus(t, msgs, 200)
	var page struct{ Messages []map[string]any }
	if err := json.Unmarshal(msgs.Body, &page); err != nil {
		t.Fatalf("transcript on A: %v: %s", err, msgs.Body)
	}
	if len(page.Messages) != 4 {
		t.Fatalf("transcript on A has %d messages, want 4 (two turns): %s", len(page.Messages), msgs.Body)
	}
}

// clusterApproval: the echo agent asks for approval on A; the answer goes
// to B, which hands it to A through the control channel; the answer and
// the receipt on A are the completed response.
func clusterApproval(t *testing.T, url string) {
	setup := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Echo: &config.EchoBackend{Approval: "send"}}
	}}
	replicas := servertest.Replicas(t, url, 2, setup)
	a, b := replicas[0], replicas[1]

	asked := a.Post("/responses", `{"input":"mail bob"}`)
	servertest.MustStatus(t, asked, 200)
	env := asked.JSON(t)
	action, _ := env["requiredAction"].(map[string]any)
	if env["status"] != "requires_action" || action["type"] != "human_approval" {
		t.Fatalf("turn on A: %s", asked.Body)
	}
	rid, sid, aid := env["id"].(string), env["sessionId"].(string), action["id"].(string)

	done := b.Post("/approvals/"+aid, `{"decision":"approve"}`)
	servertest.MustStatus(t, done, 200)
	final := done.JSON(t)
	if final["id"] != rid || final["status"] != "completed" || final["outputText"] != "Echo: mail bob" || final["approvalId"] != aid {
		t.Fatalf("approval answered on B: %s", done.Body)
	}
	if got := a.Get("/responses/" + rid + "?sessionId=" + sid); string(got.Body) != string(done.Body) {
		t.Fatalf("receipt on A %s, want the approval's answer %s", got.Body, done.Body)
	}
	servertest.MustStatus(t, a.Post("/approvals/"+aid, `{"decision":"deny"}`), 409)
}

// clusterRelay: the owner makes a pairing code on A; the outside agent
// exchanges it on B and long-polls its inbox on B; the owner's turn on A
// reaches that poll, and the reply sent to B is the turn's answer on A.
func clusterRelay(t *testing.T, url string) {
	setup := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Relay: &config.RelayBackend{}}
		c.Auth.Tokens = []config.Token{{Token: clusterOwnerToken, User: "alice", Owner: true}}
	}}
	replicas := servertest.Replicas(t, url, 2, setup)
	a, b := replicas[0].As(clusterOwnerToken), replicas[1]

	code := a.Post("/owner/outside-agents/pairings", `{"name":"Box","kind":"cli"}`)
	servertest.MustStatus(t, code, 201)
	exchanged := b.Post("/api/outside-agents/v1/pairings/exchange",
		`{"code":"`+code.JSON(t)["code"].(string)+`","card":{"name":"Box","kind":"cli"}}`)
	servertest.MustStatus(t, exchanged, 201)
	agent := b.As(exchanged.JSON(t)["token"].(string))

	polled := make(chan servertest.Reply, 1)
	go func() { polled <- send(agent.Request("GET", "/api/outside-agents/v1/inbox?wait=10", "", nil)) }()
	answered := make(chan servertest.Reply, 1)
	go func() {
		answered <- send(a.Request("POST", "/responses", "application/json", []byte(`{"input":"are you there?"}`)))
	}()

	var poll servertest.Reply
	select { // a turn that ends before the poll hears of it failed
	case poll = <-polled:
	case turn := <-answered:
		t.Fatalf("the owner's turn on A ended before the outside agent saw it: %d %s", turn.Status, turn.Body)
	case <-time.After(20 * time.Second):
		t.Fatal("the outside agent's inbox poll on B did not finish within 20s")
	}
	servertest.MustStatus(t, poll, 200)
	var inbox struct {
		Items []struct {
			RelayID string `json:"relay_id"`
			Text    string `json:"text"`
		}
	}
	if err := json.Unmarshal(poll.Body, &inbox); err != nil || len(inbox.Items) != 1 || inbox.Items[0].Text != "are you there?" {
		t.Fatalf("inbox on B: %v: %s", err, poll.Body)
	}
	reply := agent.Post("/api/outside-agents/v1/replies", `{"relay_id":"`+inbox.Items[0].RelayID+`","text":"yes, from my box"}`)
	servertest.MustStatus(t, reply, 200)

	turn := within(t, answered, "the owner's turn on A")
	servertest.MustStatus(t, turn, 200)
	if got := turn.JSON(t)["outputText"]; got != "yes, from my box" {
		t.Fatalf("turn on A answered %v, want the outside agent's reply: %s", got, turn.Body)
	}
}

// send does a request and reads its whole reply; a transport error is
// status -1 with the error as the body.
func send(req *http.Request) servertest.Reply {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return servertest.Reply{Status: -1, Body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return servertest.Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// within waits a bounded time for a reply that another goroutine sends.
func within(t *testing.T, ch <-chan servertest.Reply, what string) servertest.Reply {
	t.Helper()
	select {
	case r := <-ch:
		if r.Status == -1 {
			t.Fatalf("%s: %s", what, strings.TrimSpace(string(r.Body)))
		}
		return r
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not finish within 20s", what)
	}
	return servertest.Reply{}
}
