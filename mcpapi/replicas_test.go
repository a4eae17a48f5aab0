package mcpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/server/servertest"
)

// roundRobin is a load balancer written for the tests: every POST goes to
// the next replica, and so does every GET and DELETE (counted apart, so
// that the order of a client's POSTs alone decides where each lands). It
// records which replica served which JSON-RPC message.
type roundRobin struct {
	*httptest.Server
	proxies []*httputil.ReverseProxy

	mu     sync.Mutex
	next   map[string]int // method → index of the next replica
	served []hop
}

// hop is one request through the balancer: what it carried, and where.
type hop struct {
	method  string // the JSON-RPC method, "response" for an answer, or the HTTP method
	replica int
}

func newRoundRobin(t *testing.T, replicas []*servertest.Server) *roundRobin {
	t.Helper()
	rr := &roundRobin{next: map[string]int{}}
	for _, r := range replicas {
		target, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.FlushInterval = -1 // SSE goes through as it is written
		rr.proxies = append(rr.proxies, p)
	}
	rr.Server = httptest.NewServer(http.HandlerFunc(rr.serve))
	t.Cleanup(rr.Close)
	return rr
}

func (rr *roundRobin) serve(w http.ResponseWriter, r *http.Request) {
	what := r.Method
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(body, &msg) == nil {
			what = msg.Method
			if msg.Method == "" && msg.Result != nil {
				what = "response"
			}
		}
	}
	rr.mu.Lock()
	counter := r.Method
	i := rr.next[counter] % len(rr.proxies)
	rr.next[counter]++
	rr.served = append(rr.served, hop{what, i})
	rr.mu.Unlock()
	r.Host = "" // the proxy names the replica
	rr.proxies[i].ServeHTTP(w, r)
}

// replicaOf is the replica that served the n-th message of the method (0:
// the first).
func (rr *roundRobin) replicaOf(t *testing.T, method string, n int) int {
	t.Helper()
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, h := range rr.served {
		if h.method == method {
			if n == 0 {
				return h.replica
			}
			n--
		}
	}
	t.Fatalf("no %s through the balancer: %+v", method, rr.served)
	return -1
}

// behind connects an MCP client to /mcp through the balancer.
func behind(t *testing.T, rr *roundRobin, c client) *mcp.ClientSession {
	t.Helper()
	return connect(t, &servertest.Server{T: t, URL: rr.URL}, c)
}

// TestSessionFromAnyReplica: behind a load balancer that sends every
// request to the other of two replicas, the official Go SDK client
// initialises, lists, calls with progress, answers an elicitation that the
// other replica receives, and cancels a call from the other replica.
func TestSessionFromAnyReplica(t *testing.T) {
	t.Run("ListAndProgress", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			progress := make(chan *mcp.ProgressNotificationParams, 64)
			cs := behind(t, rr, client{progress: progress})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for range 3 { // list on both replicas
				tools, err := cs.ListTools(ctx, nil)
				if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "hello" {
					t.Fatalf("tools/list: %v %+v", err, tools)
				}
			}
			if rr.replicaOf(t, "tools/list", 0) == rr.replicaOf(t, "tools/list", 1) {
				t.Fatal("the balancer did not alternate")
			}
			for i, message := range []string{"one two three four", "five six seven eight"} {
				params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": message}}
				params.SetProgressToken("tok")
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				out := structured(t, res)
				var got strings.Builder
				for got.Len() < len(out.Text) {
					select {
					case p := <-progress:
						got.WriteString(p.Message)
					case <-ctx.Done():
						t.Fatalf("call %d: progress %q, want %q", i, got.String(), out.Text)
					}
				}
				if got.String() != "Echo: "+message {
					t.Fatalf("call %d: progress %q, want the answer %q", i, got.String(), out.Text)
				}
			}
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "tools/call", 1) {
				t.Fatal("both calls went to one replica")
			}
		})
	})
	t.Run("ElicitationAnsweredElsewhere", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{echo: echoApproval}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			asked := make(chan *mcp.ElicitParams, 4)
			cs := behind(t, rr, client{elicit: decide("approve", asked)})
			out := structured(t, callTool(t, cs, map[string]any{"message": "send it"}))
			if out.Status != "completed" || out.Text != "Echo: send it" {
				t.Fatalf("approved by elicitation: %+v", out)
			}
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want once", len(asked))
			}
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "response", 0) {
				t.Fatal("the answer reached the replica that runs the call: the test shows nothing")
			}
		})
	})
	t.Run("CancelElsewhere", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{echo: echoSlow}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			progress := make(chan *mcp.ProgressNotificationParams, 64)
			cs := behind(t, rr, client{progress: progress})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			callCtx, cancelCall := context.WithCancel(ctx)
			params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "a long story told slowly to the end"}}
			params.SetProgressToken("story")
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(callCtx, params)
				errc <- err
			}()
			var first *mcp.ProgressNotificationParams
			select {
			case first = <-progress:
			case <-ctx.Done():
				t.Fatal("no progress")
			}
			cancelCall()
			if err := <-errc; err == nil {
				t.Fatal("a cancelled call returned a result")
			}
			waitStatus(ctx, t, replicas[0], first.Meta, "cancelled")
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "notifications/cancelled", 0) {
				t.Fatal("the cancel reached the replica that runs the call: the test shows nothing")
			}
		})
	})
}

// TestSessionLifecycleAcrossReplicas: behind the balancer, a session
// opened on one replica serves on the other; another user's request on it
// gets the 404 of an unknown session on either; a DELETE, and idleness,
// end it on both.
func TestSessionLifecycleAcrossReplicas(t *testing.T) {
	s := setup{tokens: true}.serverSetup()
	s.MCP = func(o *mcpapi.Options) { o.SessionIdleTimeout = 400 * time.Millisecond }
	servertest.EachStoreReplicas(t, 2, s, func(t *testing.T, replicas []*servertest.Server) {
		rr := newRoundRobin(t, replicas)
		url := rr.URL + "/mcp"
		pingBoth := func(token, session string, want int) string {
			t.Helper()
			var body string
			for range 2 { // two POSTs: one on each replica
				r := mcpPost(t, url, token, session, pingCall)
				if r.status != want {
					t.Fatalf("ping: %d %s, want %d", r.status, r.body, want)
				}
				body = r.body
			}
			return body
		}
		id := open(t, url, aliceToken)
		pingBoth(aliceToken, id, http.StatusOK)
		theirs := pingBoth(bobToken, id, http.StatusNotFound)
		if unknown := pingBoth(bobToken, "no-such-session", http.StatusNotFound); unknown != theirs {
			t.Fatalf("bob on alice's session: %q; on an unknown one: %q; want the same", theirs, unknown)
		}
		pingBoth(aliceToken, id, http.StatusOK) // bob's tries changed nothing

		if r := mcpDo(t, "DELETE", url, aliceToken, id, ""); r.status != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}
		pingBoth(aliceToken, id, http.StatusNotFound)

		idle := open(t, url, aliceToken)
		pingBoth(aliceToken, idle, http.StatusOK)
		time.Sleep(time.Second) // idle for longer than 400 ms
		pingBoth(aliceToken, idle, http.StatusNotFound)
	})
}
