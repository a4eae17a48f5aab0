package live_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/server/servertest"
)

func TestCancelThenNewResponse(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"block","requestId":"b1"}`)
		frames := c.until("response.text.delta")
		rid := frames[0]["responseId"].(string)
		<-agent.started
		if st := ts.receipt(rid, sid)["status"]; st != "in_progress" {
			t.Fatalf("receipt while running %v", st)
		}
		c.send(`{"type":"response.cancel","responseId":"` + rid + `"}`)
		last := c.next()
		if last["type"] != "response.completed" || last["status"] != "cancelled" || last["requestId"] != "b1" ||
			last["responseId"] != rid || last["sequence"] != 2.0 || last["outputText"] != "" {
			t.Fatalf("after cancel %v", last)
		}
		ts.waitReceipt(rid, sid, "cancelled")

		// The socket stays usable.
		c.send(`{"type":"response.create","input":"next","requestId":"n"}`)
		frames = c.until("response.completed")
		checkSequences(t, frames, 0)
		if last := frames[len(frames)-1]; last["outputText"] != "Echo: next" || last["requestId"] != "n" {
			t.Fatalf("next response %v", last)
		}
	})
}

func TestProtocolErrorEndsTheResponse(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		for _, bad := range []struct{ frame, want string }{
			{`{"type":"response.create","input":"second"}`, "Only response.cancel is accepted while no action is pending"},
			{`{"type":"response.cancel","responseId":"resp_stale"}`, "Invalid response.cancel frame"},
			{`{"type":"response.cancel","responseId":"RID","x":1}`, "Invalid response.cancel frame"},
			{`{"type":"approval.decision","responseId":"RID","approvalId":"approval_x","decision":"approve"}`, "Only response.cancel is accepted while no action is pending"},
			{`garbage`, "Only response.cancel is accepted while no action is pending"},
		} {
			c.send(`{"type":"response.create","input":"block","requestId":"p"}`)
			frames := c.until("response.text.delta")
			<-agent.started
			rid := frames[0]["responseId"].(string)
			c.send(strings.ReplaceAll(bad.frame, "RID", rid))
			f := c.next()
			if f["type"] != "error" || f["error"] != bad.want || f["responseId"] != rid || f["sessionId"] != sid ||
				f["requestId"] != "p" || f["sequence"] != 2.0 {
				t.Fatalf("%s answered %v", bad.frame, f)
			}
			// As in the reference, a protocol error fails the response.
			receipt := ts.waitReceipt(rid, sid, "failed")
			if code := receipt["error"].(map[string]any)["code"]; code != "protocol_error" {
				t.Fatalf("failed receipt code %v, want protocol_error", code)
			}
		}
		c.send(`{"type":"response.create","input":"after"}`)
		c.until("response.completed")
	})
}

func TestSessionCloseCancelsTheResponse(t *testing.T) {
	agent := newTestAgent()
	ts := newLiveServer(t, "", setup{Agent: agent})
	c, sid := ts.connect("")
	c.send(`{"type":"response.create","input":"block"}`)
	rid := c.until("response.text.delta")[0]["responseId"].(string)
	<-agent.started
	c.send(`{"type":"session.close"}`)
	c.mustClose(websocket.CloseNormalClosure, "")
	ts.waitReceipt(rid, sid, "cancelled")
}

func TestDisconnectMidResponse(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"block"}`)
		rid := c.until("response.text.delta")[0]["responseId"].(string)
		<-agent.started
		_ = c.ws.NetConn().Close() // no close frame: the client is just gone
		ts.waitReceipt(rid, sid, "cancelled")
		waitConns(t, ts.live, 0)
		checkNoLiveGoroutines(t) // the socket's goroutines ended with it

		// Gone while waiting for an approval: cancelled too.
		c, sid = ts.connect("")
		c.send(`{"type":"response.create","input":"approve"}`)
		rid = c.until("response.completed")[0]["responseId"].(string)
		ts.waitReceipt(rid, sid, "requires_action")
		_ = c.ws.Close()
		ts.waitReceipt(rid, sid, "cancelled")
	})
}

func waitConns(t testing.TB, h *live.Handler, n int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if h.Conns() == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d sockets open, want %d", h.Conns(), n)
}

func TestApprovalOnTheSocket(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"approve","requestId":"a1"}`)
		frames := c.until("response.completed")
		if names(frames) != "response.created,response.text.delta,approval.requested,response.completed" {
			t.Fatalf("first segment %s", names(frames))
		}
		checkSequences(t, frames, 0)
		rid := frames[0]["responseId"].(string)
		approval := frames[2]["approval"].(map[string]any)
		aid := approval["id"].(string)
		if approval["action"] != "send" || approval["callId"] != rid || frames[2]["requestId"] != "a1" {
			t.Fatalf("approval.requested %v", frames[2])
		}
		if statusOf(frames[3]) != "requires_action" || frames[3]["requiredAction"].(map[string]any)["id"] != aid {
			t.Fatalf("requires_action frame %v", frames[3])
		}
		if st := ts.receipt(rid, sid)["status"]; st != "requires_action" {
			t.Fatalf("receipt while waiting %v", st)
		}
		c.send(`{"type":"approval.decision","responseId":"` + rid + `","approvalId":"` + aid + `","decision":"approve"}`)
		rest := c.until("response.completed")
		if names(rest) != "approval.resolved,response.text.delta,response.completed" {
			t.Fatalf("after the decision %s", names(rest))
		}
		checkSequences(t, rest, 4)
		if r := rest[0]; r["approvalId"] != aid || r["decision"] != "approve" || r["responseId"] != rid || r["sessionId"] != sid {
			t.Fatalf("approval.resolved %v", r)
		}
		last := rest[2]
		if last["responseId"] != rid || statusOf(last) != "completed" || last["outputText"] != "Drafted. Sent." ||
			last["approvalId"] != aid || last["requestId"] != "a1" {
			t.Fatalf("completed %v", last)
		}
		receipt := ts.receipt(rid, sid)
		if receipt["status"] != "completed" || receipt["approvalId"] != aid {
			t.Fatalf("receipt %v", receipt)
		}
		// A decision that is not for the pending approval is a protocol error.
		c.send(`{"type":"response.create","input":"approve"}`)
		frames = c.until("response.completed")
		rid = frames[0]["responseId"].(string)
		c.send(`{"type":"approval.decision","responseId":"` + rid + `","approvalId":"approval_other","decision":"approve"}`)
		if f := c.next(); f["type"] != "error" || f["error"] != "Invalid approval.decision frame" || f["sequence"] != 4.0 {
			t.Fatalf("wrong approval answered %v", f)
		}
		ts.waitReceipt(rid, sid, "failed")
	})
}

func TestApprovalDeniedOnTheSocket(t *testing.T) {
	ts := newLiveServer(t, "", setup{Agent: newTestAgent()})
	c, sid := ts.connect("")
	c.send(`{"type":"response.create","input":"approve"}`)
	frames := c.until("response.completed")
	rid, aid := frames[0]["responseId"].(string), frames[2]["approval"].(map[string]any)["id"].(string)
	c.send(`{"type":"approval.decision","responseId":"` + rid + `","approvalId":"` + aid + `","decision":"deny"}`)
	rest := c.until("response.completed")
	if names(rest) != "approval.resolved,response.completed" || rest[0]["decision"] != "deny" {
		t.Fatalf("after deny %v", rest)
	}
	checkSequences(t, rest, 4)
	if last := rest[1]; statusOf(last) != "denied" || last["approvalId"] != aid || last["responseId"] != rid {
		t.Fatalf("denied %v", last)
	}
	ts.waitReceipt(rid, sid, "denied")
	c.send(`{"type":"response.create","input":"next"}`)
	c.until("response.completed")
}

// An approval answered over HTTP while the socket waits: the socket still
// sees approval.resolved, then the resumed output; a second decision on
// the socket is a protocol error.
func TestApprovalOverHTTPWhileTheSocketWaits(t *testing.T) {
	eachStore(t, setup{Agent: newTestAgent()}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"approve","requestId":"h"}`)
		frames := c.until("response.completed")
		rid, aid := frames[0]["responseId"].(string), frames[2]["approval"].(map[string]any)["id"].(string)
		r := ts.post("/approvals/"+aid, `{"decision":"approve"}`)
		if r.Status != 200 {
			t.Fatalf("POST /approvals: %d %s", r.Status, r.Body)
		}
		if env := r.JSON(t); env["id"] != rid || env["status"] != "completed" || env["outputText"] != "Drafted. Sent." {
			t.Fatalf("HTTP answer %s", r.Body)
		}
		rest := c.until("response.completed")
		if names(rest) != "approval.resolved,response.text.delta,response.completed" || rest[0]["decision"] != "approve" {
			t.Fatalf("socket after the HTTP decision %v", rest)
		}
		checkSequences(t, rest, 4)
		if last := rest[2]; last["outputText"] != "Drafted. Sent." || last["requestId"] != "h" {
			t.Fatalf("completed %v", last)
		}
		if got := ts.receipt(rid, sid); got["status"] != "completed" {
			t.Fatalf("receipt %v", got)
		}
	})
}

func TestClientTool(t *testing.T) {
	eachStore(t, setup{Agent: newTestAgent()}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"tool","requestId":"t"}`)
		frames := c.until("client_tool.requested")
		if names(frames) != "response.created,response.text.delta,client_tool.requested" {
			t.Fatalf("frames %s", names(frames))
		}
		checkSequences(t, frames, 0)
		rid := frames[0]["responseId"].(string)
		tool := frames[2]["clientTool"].(map[string]any)
		tid := tool["id"].(string)
		if tool["name"] != "get_location" || frames[2]["requestId"] != "t" {
			t.Fatalf("client_tool.requested %v", frames[2])
		}
		// No requires_action frame on the socket; the receipt says it.
		receipt := ts.waitReceipt(rid, sid, "requires_action")
		if receipt["requiredAction"].(map[string]any)["id"] != tid {
			t.Fatalf("receipt %v", receipt)
		}
		c.send(`{"type":"client_tool.result","requestId":"` + tid + `","output":"Oslo"}`)
		rest := c.until("response.completed")
		if names(rest) != "response.text.delta,response.completed" {
			t.Fatalf("after the result %s", names(rest))
		}
		checkSequences(t, rest, 3)
		if last := rest[1]; last["outputText"] != ` Looking. You are in "Oslo".` || last["clientToolId"] != tid || last["requestId"] != "t" {
			t.Fatalf("completed %v", last)
		}

		// A result for another request is a protocol error.
		c.send(`{"type":"response.create","input":"tool"}`)
		frames = c.until("client_tool.requested")
		rid = frames[0]["responseId"].(string)
		c.send(`{"type":"client_tool.result","requestId":"client_tool_other","output":1}`)
		if f := c.next(); f["type"] != "error" || f["error"] != "Expected client_tool.result for the pending client tool request" || f["sequence"] != 3.0 {
			t.Fatalf("wrong result answered %v", f)
		}
		ts.waitReceipt(rid, sid, "failed")
	})
}

func TestApprovalThenClientTool(t *testing.T) {
	ts := newLiveServer(t, "", setup{Agent: newTestAgent()})
	c, _ := ts.connect("")
	c.send(`{"type":"response.create","input":"both"}`)
	frames := c.until("response.completed")
	rid, aid := frames[0]["responseId"].(string), frames[2]["approval"].(map[string]any)["id"].(string)
	c.send(`{"type":"approval.decision","responseId":"` + rid + `","approvalId":"` + aid + `","decision":"approve"}`)
	rest := c.until("client_tool.requested")
	if names(rest) != "approval.resolved,response.text.delta,response.text.delta,client_tool.requested" {
		t.Fatalf("after approval %s", names(rest))
	}
	checkSequences(t, rest, 4)
	tid := rest[3]["clientTool"].(map[string]any)["id"].(string)
	c.send(`{"type":"client_tool.result","requestId":"` + tid + `","output":{"city":"Oslo"}}`)
	end := c.until("response.completed")
	checkSequences(t, end, 8)
	if got := end[len(end)-1]["outputText"]; got != `Drafted. Sent. Looking. You are in {"city":"Oslo"}.` {
		t.Fatalf("output %q", got)
	}
}

// A client that never reads, while its response streams a flood of deltas,
// is dropped and its response cancelled, while another socket is served.
func TestSlowReaderIsDropped(t *testing.T) {
	agent := newTestAgent()
	tiny := func(o *live.Options) { o.SendQueue = 4; o.WriteTimeout = time.Second }
	eachStore(t, setup{Agent: agent, Live: tiny}, func(t *testing.T, ts *liveServer) {
		agent.emitted.Store(0)
		d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
			conn, err := net.Dial(network, addr)
			if err == nil {
				_ = conn.(*net.TCPConn).SetReadBuffer(4096)
			}
			return conn, err
		}}
		ws, _, err := d.Dial(ts.WS, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		slow := &client{t: t, ws: ws}
		slow.send(`{"type":"connect"}`)
		sid := slow.next()["sessionId"].(string)
		slow.send(`{"type":"response.create","input":"flood"}`)
		rid := <-agent.started
		// Wait until the flood is stuck on the client that does not read.
		for last := int64(-1); agent.emitted.Load() != last; time.Sleep(50 * time.Millisecond) {
			last = agent.emitted.Load()
		}
		// Meanwhile, another socket has a whole turn.
		other, _ := ts.connect("")
		other.send(`{"type":"response.create","input":"quick"}`)
		if frames := other.until("response.completed"); frames[len(frames)-1]["outputText"] != "Echo: quick" {
			t.Fatalf("other socket %v", frames)
		}
		// The slow one is dropped and its response cancelled.
		ts.waitReceipt(rid, sid, "cancelled")
		waitConns(t, ts.live, 1)
		if n := agent.emitted.Load(); n >= 50000 {
			t.Fatalf("the flood was not stopped: %d deltas", n)
		}
		t.Logf("flood stopped after %d deltas", agent.emitted.Load())
	})
}

// A client that reads is never dropped, however small the queue and fast
// the Agent: the response waits for it.
func TestTinyQueueBackpressure(t *testing.T) {
	agent := newTestAgent()
	tiny := func(o *live.Options) { o.SendQueue = 2; o.WriteTimeout = 2 * time.Second }
	ts := newLiveServer(t, "", setup{Agent: agent, Live: tiny})
	c, sid := ts.connect("")
	c.send(`{"type":"response.create","input":"flood 1000"}`)
	frames := c.until("response.completed")
	<-agent.started
	if len(frames) != 1002 || statusOf(frames[1001]) != "completed" {
		t.Fatalf("%d frames, last %v", len(frames), frames[len(frames)-1]["type"])
	}
	checkSequences(t, frames, 0)
	ts.waitReceipt(frames[0]["responseId"].(string), sid, "completed")
}

func TestHeartbeat(t *testing.T) {
	// Intervals long enough that a loaded machine (the race detector, the
	// whole suite in parallel) still answers each ping in time.
	fast := func(o *live.Options) { o.PingInterval = 200 * time.Millisecond }
	ts := newLiveServer(t, "", setup{Live: fast})
	// A client that reads (and so answers pings) stays connected over
	// several intervals.
	c, _ := ts.connect("")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.ws.SetReadDeadline(time.Now().Add(1200 * time.Millisecond))
		_, _, _ = c.ws.ReadMessage() // answers pings until the deadline
	}()
	<-done
	if ts.live.Conns() != 1 {
		t.Fatalf("a client that answers pings was dropped")
	}
	_ = c.ws.Close()
	waitConns(t, ts.live, 0)

	// A client that never reads answers no ping: dropped after two intervals.
	silent := ts.mustDial()
	silent.send(`{"type":"connect"}`)
	waitConns(t, ts.live, 0)
	checkNoLiveGoroutines(t)
}

func TestAuth(t *testing.T) {
	ts := newLiveServer(t, "", setup{Config: withTokens})
	cases := []struct {
		name     string
		header   http.Header
		protos   []string
		code     int
		reason   string
		selected string
	}{
		{"no credential", nil, nil, live.CloseUnauthorized, "Authentication required", ""},
		{"wrong bearer", http.Header{"Authorization": {"Bearer nope"}}, nil, live.CloseUnauthorized, "The bearer token is not valid", ""},
		{"wrong cookie", http.Header{"Cookie": {"harnest_token=nope"}}, nil, live.CloseUnauthorized, "The bearer token is not valid", ""},
		{"wrong subprotocol token", nil, []string{"harnest.live", "bearer.nope"}, live.CloseUnauthorized, "The bearer token is not valid", "harnest.live"},
		{"foreign origin", http.Header{"Authorization": {"Bearer " + aliceToken}, "Origin": {"http://evil.example"}}, nil, live.CloseForbidden, "Origin not allowed", ""},
		{"bearer", http.Header{"Authorization": {"Bearer " + aliceToken}}, nil, 0, "", ""},
		{"cookie, same origin", http.Header{"Cookie": {"harnest_token=" + aliceToken}, "Origin": {ts.URL}}, nil, 0, "", ""},
		{"subprotocol", http.Header{"Origin": {ts.URL}}, []string{"harnest.live", "bearer." + aliceToken}, 0, "", "harnest.live"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, resp, err := ts.dial(tc.header, tc.protos...)
			if err != nil {
				t.Fatalf("handshake failed: %v", err)
			}
			if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != tc.selected {
				t.Fatalf("selected subprotocol %q, want %q", got, tc.selected)
			}
			if tc.code != 0 {
				c.mustClose(tc.code, tc.reason)
				return
			}
			c.send(`{"type":"connect"}`)
			sid := c.next()["sessionId"].(string)
			// The session is alice's.
			if r := ts.as(aliceToken).get("/sessions/" + sid); r.Status != 200 {
				t.Fatalf("alice cannot read the socket's session: %d", r.Status)
			}
			if r := ts.as(bobToken).get("/sessions/" + sid); r.Status != 404 {
				t.Fatalf("bob reads alice's session: %d", r.Status)
			}
		})
	}
}

func TestAllowedOrigins(t *testing.T) {
	ts := newLiveServer(t, "", setup{Live: func(o *live.Options) { o.AllowedOrigins = []string{"https://app.example"} }})
	for origin, ok := range map[string]bool{"https://app.example": true, "HTTPS://APP.EXAMPLE": true, "https://other.example": false, "null": false} {
		c, _, err := ts.dial(http.Header{"Origin": {origin}})
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			c.mustClose(live.CloseForbidden, "Origin not allowed")
			continue
		}
		c.send(`{"type":"connect"}`)
		if f := c.next(); f["type"] != "session.connected" {
			t.Fatalf("origin %s: %v", origin, f)
		}
	}
}

func TestDisabled(t *testing.T) {
	srv := httptest.NewServer(live.Disabled())
	defer srv.Close()
	hs := srv.URL
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, ws: ws}
	c.mustClose(websocket.ClosePolicyViolation, "Live connections are disabled")
	resp, err := http.Get(hs)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("plain GET of a disabled /live: %d", resp.StatusCode)
	}
}

func TestPlainGETIsRefused(t *testing.T) {
	ts := newLiveServer(t, "", setup{})
	if r := ts.get("/live"); r.Status != http.StatusUpgradeRequired || !strings.Contains(string(r.Body), "websocket_required") {
		t.Fatalf("plain GET /live: %d %s", r.Status, r.Body)
	}
}

func TestShutdownClosesSockets(t *testing.T) {
	agent := newTestAgent()
	ts := newLiveServer(t, "", setup{Agent: agent})
	idle, _ := ts.connect("")
	busy, sid := ts.connect("")
	waiting, wsid := ts.connect("")
	busy.send(`{"type":"response.create","input":"block"}`)
	rid := busy.until("response.text.delta")[0]["responseId"].(string)
	<-agent.started
	waiting.send(`{"type":"response.create","input":"approve"}`)
	wrid := waiting.until("response.completed")[0]["responseId"].(string)

	ctx, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- ts.live.Shutdown(ctx) }()
	// The idle socket closes at once; new sockets are turned away.
	idle.mustClose(websocket.CloseGoingAway, "Server shutting down")
	ts.mustDial().mustClose(websocket.CloseGoingAway, "Server shutting down")
	// A running response may finish, then its socket closes.
	agent.release <- struct{}{}
	if frames := busy.until("response.completed"); statusOf(frames[len(frames)-1]) != "completed" {
		t.Fatalf("running response at shutdown %v", frames)
	}
	busy.mustClose(websocket.CloseGoingAway, "Server shutting down")
	ts.waitReceipt(rid, sid, "completed")
	// When the grace ends, what still waits is cancelled.
	cancel()
	if f := waiting.next(); statusOf(f) != "cancelled" {
		t.Fatalf("waiting response after the grace %v", f)
	}
	waiting.mustClose(websocket.CloseGoingAway, "Server shutting down")
	ts.waitReceipt(wrid, wsid, "cancelled")
	if err := <-shut; err != context.Canceled {
		t.Fatalf("Shutdown returned %v", err)
	}
}

// Two replicas share Redis: a socket on A waits for an approval that is
// posted to B, then for a cancel posted to B.
func TestReplicas(t *testing.T) {
	for _, store := range testutil.Stores(t) {
		t.Run(store.Name, func(t *testing.T) { testReplicas(t, store.URL) })
	}
}

func testReplicas(t *testing.T, url string) {
	shared := servertest.Shared(t, url, setup{Agent: newTestAgent()})
	a := newLiveServer(t, url, shared)
	b := newLiveServer(t, url, shared)
	c, sid := a.connect("")
	c.send(`{"type":"response.create","input":"approve"}`)
	frames := c.until("response.completed")
	rid, aid := frames[0]["responseId"].(string), frames[2]["approval"].(map[string]any)["id"].(string)
	if r := b.post("/approvals/"+aid, `{"decision":"approve"}`); r.Status != 200 || r.JSON(t)["outputText"] != "Drafted. Sent." {
		t.Fatalf("approval through B: %d %s", r.Status, r.Body)
	}
	if rest := c.until("response.completed"); names(rest) != "approval.resolved,response.text.delta,response.completed" {
		t.Fatalf("socket on A after B's decision %s", names(rest))
	}

	c.send(`{"type":"response.create","input":"tool"}`)
	rid = c.until("client_tool.requested")[0]["responseId"].(string)
	if r := b.post("/responses/"+rid+"/cancel?sessionId="+sid, ""); r.Status != 200 || r.JSON(t)["status"] != "cancelled" {
		t.Fatalf("cancel through B: %d %s", r.Status, r.Body)
	}
	if last := c.next(); last["type"] != "response.completed" || statusOf(last) != "cancelled" || last["sequence"] != 3.0 {
		t.Fatalf("socket on A after B's cancel %v", last)
	}
	// A socket on B continues the same session.
	c2, _ := b.connect(sid)
	c2.send(`{"type":"response.create","input":"from b"}`)
	c2.until("response.completed")
}
