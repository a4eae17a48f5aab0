package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// Tokens of the auth tests.
const (
	aliceToken = "token-alice-0123456789"
	bobToken   = "token-bob-0123456789"
)

func withTokens(c *config.Config) {
	c.Auth.Tokens = []config.Token{{Token: aliceToken, User: "alice"}, {Token: bobToken, User: "bob"}}
}

// setup describes a server under test (/live is always on).
type setup = servertest.Setup

// liveServer is a whole harnest server over httptest (servertest) with
// WS /live on.
type liveServer struct {
	*servertest.Server
	WS   string // ws://host/live
	live *live.Handler
}

// reply is a finished HTTP exchange.
type reply = servertest.Reply

// eachStore runs fn against a server on the in-process store and on a real
// redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *liveServer)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			fn(t, newLiveServer(t, c.URL, s))
		})
	}
}

func newLiveServer(t testing.TB, redisURL string, s setup) *liveServer {
	t.Helper()
	t.Cleanup(func() { checkNoLiveGoroutines(t) }) // runs after the server's cleanup
	userConfig := s.Config
	s.Config = func(c *config.Config) {
		c.Server.Live = true
		if userConfig != nil {
			userConfig(c)
		}
	}
	ts := servertest.Start(t, redisURL, s)
	return &liveServer{Server: ts, WS: "ws" + strings.TrimPrefix(ts.URL, "http") + "/live", live: ts.Srv.Live()}
}

// checkNoLiveGoroutines fails when a goroutine of package live outlives
// its sockets.
func checkNoLiveGoroutines(t testing.TB) {
	t.Helper()
	var stacks string
	for i := 0; i < 200; i++ {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:goruntime.Stack(buf, true)])
		if !strings.Contains(stacks, "harnest/live.") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	var left []string
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "harnest/live.") {
			left = append(left, g)
		}
	}
	t.Errorf("goroutines of package live left behind:\n%s", strings.Join(left, "\n\n"))
}

// as returns a copy of the server handle that sends the given token on
// HTTP calls.
func (ts *liveServer) as(token string) *liveServer {
	c := *ts
	c.Server = ts.Server.As(token)
	return &c
}

func (ts *liveServer) get(path string) reply { return ts.Get(path) }

func (ts *liveServer) post(path, body string) reply {
	if body == "" {
		return ts.Do("POST", path, "", nil)
	}
	return ts.Post(path, body)
}

// receipt polls a response's receipt.
func (ts *liveServer) receipt(responseID, sessionID string) map[string]any {
	ts.T.Helper()
	r := ts.get("/responses/" + responseID + "?sessionId=" + sessionID)
	if r.Status != 200 {
		ts.T.Fatalf("receipt of %s: %d %s", responseID, r.Status, r.Body)
	}
	return r.JSON(ts.T)
}

// waitReceipt polls a receipt until it has the status (for at most 10 s).
func (ts *liveServer) waitReceipt(responseID, sessionID, status string) map[string]any {
	ts.T.Helper()
	var got map[string]any
	for i := 0; i < 500; i++ {
		got = ts.receipt(responseID, sessionID)
		if got["status"] == status {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.T.Fatalf("receipt of %s stayed %v, want %s: %v", responseID, got["status"], status, got)
	return nil
}

// client is a WebSocket client of /live.
type client struct {
	t  testing.TB
	ws *websocket.Conn
}

// dial opens a socket with the given handshake headers and subprotocols.
func (ts *liveServer) dial(header http.Header, subprotocols ...string) (*client, *http.Response, error) {
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, Subprotocols: subprotocols}
	ws, resp, err := d.Dial(ts.WS, header)
	if err != nil {
		return nil, resp, err
	}
	c := &client{t: ts.T, ws: ws}
	ts.T.Cleanup(func() { _ = ws.Close() })
	return c, resp, nil
}

// mustDial opens a socket as the server handle's token (if any).
func (ts *liveServer) mustDial() *client {
	ts.T.Helper()
	h := http.Header{}
	if ts.Token != "" {
		h.Set("Authorization", "Bearer "+ts.Token)
	}
	c, _, err := ts.dial(h)
	if err != nil {
		ts.T.Fatalf("dial: %v", err)
	}
	return c
}

// connect opens a socket on a session ("" for a new one) and returns the
// client and the session ID.
func (ts *liveServer) connect(sessionID string) (*client, string) {
	ts.T.Helper()
	c := ts.mustDial()
	if sessionID == "" {
		c.send(`{"type":"connect"}`)
	} else {
		c.send(`{"type":"connect","sessionId":` + quote(sessionID) + `}`)
	}
	f := c.next()
	if f["type"] != "session.connected" || f["sessionId"] == "" {
		ts.T.Fatalf("connect answered %v", f)
	}
	return c, f["sessionId"].(string)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (c *client) send(frame string) {
	c.t.Helper()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		c.t.Fatalf("send %s: %v", frame, err)
	}
}

// nextRaw reads one frame (within 10 s).
func (c *client) nextRaw() []byte {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	mt, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if mt != websocket.TextMessage {
		c.t.Fatalf("message type %d", mt)
	}
	return data
}

func (c *client) next() map[string]any {
	c.t.Helper()
	data := c.nextRaw()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		c.t.Fatalf("frame is not a JSON object: %s", data)
	}
	return v
}

// until reads frames up to and including the first of the given type.
func (c *client) until(typ string) []map[string]any {
	c.t.Helper()
	var frames []map[string]any
	for i := 0; i < 10000; i++ {
		f := c.next()
		frames = append(frames, f)
		if f["type"] == typ {
			return frames
		}
	}
	c.t.Fatalf("no %s frame in %d frames", typ, len(frames))
	return nil
}

// closed reads until the server closes and returns the close code and
// reason (-1 when the connection dropped without a close frame).
func (c *client) closed() (int, string) {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, _, err := c.ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, ce.Text
		}
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			c.t.Fatalf("the server did not close: %v", err)
		}
		return -1, err.Error()
	}
}

// mustClose checks the server closes with the code and reason.
func (c *client) mustClose(code int, reason string) {
	c.t.Helper()
	gotCode, gotReason := c.closed()
	if gotCode != code || (reason != "*" && gotReason != reason) {
		c.t.Fatalf("closed with %d %q, want %d %q", gotCode, gotReason, code, reason)
	}
}

func names(frames []map[string]any) string {
	var n []string
	for _, f := range frames {
		n = append(n, f["type"].(string))
	}
	return strings.Join(n, ",")
}

// checkSequences checks frames of one response count 0, 1, 2 … from first.
func checkSequences(t testing.TB, frames []map[string]any, first int) {
	t.Helper()
	for i, f := range frames {
		if seq, _ := f["sequence"].(float64); int(seq) != first+i {
			t.Fatalf("frame %d has sequence %v, want %d: %v", i, f["sequence"], first+i, f)
		}
	}
}

// testAgent behaves by the input's first word:
//
//	block    emits "working", reports its response ID on started, then
//	         waits for release (or cancellation) and emits "done"
//	approve  emits "Drafted. ", asks approval of "send", emits "Sent."
//	tool     emits "Looking. ", calls the client tool get_location, emits
//	         "You are in <output>."
//	both     approve, then tool
//	flood N  emits N deltas of 2 KiB (50,000 without N), counted in emitted
//	fail     emits "partial" and fails
//	anything else: "Echo: " and the input, as two deltas
type testAgent struct {
	started chan string
	release chan struct{}
	emitted atomic.Int64
}

func newTestAgent() *testAgent {
	return &testAgent{started: make(chan string, 16), release: make(chan struct{}, 16)}
}

func (a *testAgent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	delta := func(s string) error { return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: s}) }
	word, _, _ := strings.Cut(turn.Input, " ")
	switch word {
	case "block":
		if err := delta("working"); err != nil {
			return err
		}
		a.started <- turn.ResponseID
		select {
		case <-a.release:
			return delta(" done")
		case <-ctx.Done():
			return ctx.Err()
		}
	case "approve", "both":
		if err := delta("Drafted. "); err != nil {
			return err
		}
		if err := turn.RequestApproval(ctx, runtime.ApprovalRequest{Action: "send", Message: "Send the reply?", Arguments: json.RawMessage(`{"to":"bob"}`)}); err != nil {
			return err
		}
		if err := delta("Sent."); err != nil {
			return err
		}
		if word == "approve" {
			return nil
		}
		fallthrough
	case "tool":
		if err := delta(" Looking. "); err != nil {
			return err
		}
		out, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: "get_location", Arguments: json.RawMessage(`{"precise":false}`)})
		if err != nil {
			return err
		}
		return delta("You are in " + string(out) + ".")
	case "flood":
		a.started <- turn.ResponseID
		chunk := strings.Repeat("x", 2048)
		n, err := strconv.Atoi(strings.TrimPrefix(turn.Input, "flood "))
		if err != nil {
			n = 50000
		}
		for i := 0; i < n; i++ {
			if err := delta(chunk); err != nil {
				return err
			}
			a.emitted.Add(1)
		}
		return nil
	case "fail":
		if err := delta("partial"); err != nil {
			return err
		}
		return errors.New("boom")
	}
	if err := delta("Echo: "); err != nil {
		return err
	}
	return delta(turn.Input)
}

// compactJSON re-encodes JSON without whitespace, for comparisons.
func compactJSON(t testing.TB, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return buf.String()
}
