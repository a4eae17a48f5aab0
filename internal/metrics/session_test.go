package metrics_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// TestScriptedSession runs a known session and checks that the scraped
// metrics count exactly what was done: on one server N JSON turns, M SSE
// turns and a /live turn, with the socket still open while scraping; a
// failed turn on a second server (echo fail: true); an approved turn on a
// third (echo approval).
func TestScriptedSession(t *testing.T) {
	const jsonTurns, sseTurns = 3, 2
	live := servertest.Setup{Config: func(c *config.Config) { c.Server.Live = true }}
	servertest.EachStore(t, live, func(t *testing.T, ts *servertest.Server) {
		var sessionID, responseID string
		for i := 0; i < jsonTurns; i++ {
			r := ts.Post("/responses", `{"input":"secret words `+string(rune('a'+i))+`"}`)
			servertest.MustStatus(t, r, 200)
			env := r.JSON(t)
			sessionID, responseID = env["sessionId"].(string), env["id"].(string)
		}
		for i := 0; i < sseTurns; i++ {
			frames, _ := ts.Stream("/responses", `{"input":"streamed","stream":true}`)
			if last := frames[len(frames)-1]; last.Data["status"] != "completed" {
				t.Fatalf("SSE turn ended with %s", last.Raw)
			}
		}
		servertest.MustStatus(t, ts.Get("/responses/"+responseID+"?sessionId="+sessionID), 200)
		ws := dialLive(t, ts)
		liveTurn(t, ws)

		families := settled(t, ts)
		expect(t, families, map[string]float64{
			"harnest_turns_total|transport=json|backend=echo|status=completed": jsonTurns,
			"harnest_turns_total|transport=sse|backend=echo|status=completed":  sseTurns,
			"harnest_turns_total|transport=live|backend=echo|status=completed": 1,
			"harnest_turns_total": jsonTurns + sseTurns + 1,
			"harnest_turn_duration_seconds|transport=json|backend=echo":                           jsonTurns,
			"harnest_turn_first_event_seconds|transport=sse":                                      sseTurns,
			"harnest_admission_wait_seconds":                                                      jsonTurns + sseTurns + 1,
			"harnest_http_requests_total|route=POST /responses|method=POST|status=200":            jsonTurns + sseTurns,
			"harnest_http_requests_total|route=GET /responses/{responseId}|method=GET|status=200": 1,
			"harnest_http_requests_total|route=GET /live|method=GET|status=101":                   1,
			"harnest_http_request_duration_seconds|route=POST /responses|method=POST":             jsonTurns + sseTurns,
			"harnest_live_sockets":         1,
			"harnest_sse_streams":          0,
			"harnest_responses_active":     0,
			"harnest_admission_queued":     0,
			"harnest_store_errors_total":   0,
			"harnest_store_failures_total": 0,
			"harnest_followers":            0,
			"harnest_model_tokens_total":   0,
		})
		for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "harnest_store_failures_total", "harnest_sse_streams", "harnest_followers"} {
			if families[name] == nil {
				t.Errorf("%s is not exported", name)
			}
		}
		for _, v := range labelValues(families) {
			if strings.Contains(v, sessionID) || strings.Contains(v, responseID) || strings.Contains(v, "secret") {
				t.Errorf("a label holds a session, a response or input text: %q", v)
			}
		}
		_ = ws.Close()
	})

	failing := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Echo: &config.EchoBackend{Fail: true}}
	}}
	servertest.EachStore(t, failing, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/responses", `{"input":"fail please"}`)
		if r.Status < 500 {
			t.Fatalf("failed turn answered %d: %s", r.Status, r.Body)
		}
		expect(t, settled(t, ts), map[string]float64{
			"harnest_turns_total|transport=json|backend=echo|status=failed": 1,
			"harnest_turns_total": 1,
			"harnest_http_requests_total|route=POST /responses|method=POST|status=" + itoa(r.Status): 1,
		})
	})

	approving := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Echo: &config.EchoBackend{Approval: "send"}}
	}}
	servertest.EachStore(t, approving, func(t *testing.T, ts *servertest.Server) {
		asked := ts.Post("/responses", `{"input":"mail bob"}`)
		servertest.MustStatus(t, asked, 200)
		action, _ := asked.JSON(t)["requiredAction"].(map[string]any)
		if action == nil {
			t.Fatalf("no approval asked: %s", asked.Body)
		}
		servertest.MustStatus(t, ts.Post("/approvals/"+action["id"].(string), `{"decision":"approve"}`), 200)
		expect(t, settled(t, ts), map[string]float64{
			"harnest_turns_total|transport=json|backend=echo|status=completed": 1,
			"harnest_turns_total": 1,
			// a slot before the approval and one after it
			"harnest_admission_wait_seconds": 2,
			"harnest_http_requests_total|route=POST /approvals/{approvalId}|method=POST|status=200": 1,
		})
	})
}

// dialLive opens a /live socket on a new session.
func dialLive(t *testing.T, ts *servertest.Server) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/live", http.Header{})
	if err != nil {
		t.Fatalf("dial /live: %v", err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	send(t, ws, `{"type":"connect"}`)
	if f := next(t, ws); f["type"] != "session.connected" {
		t.Fatalf("connect answered %v", f)
	}
	return ws
}

// liveTurn runs one turn on the socket, to its response.completed.
func liveTurn(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	send(t, ws, `{"type":"response.create","input":"over the socket"}`)
	for i := 0; i < 100; i++ {
		f := next(t, ws)
		if f["type"] == "response.completed" {
			return
		}
		if f["type"] == "error" {
			t.Fatalf("live turn failed: %v", f)
		}
	}
	t.Fatal("no response.completed on the socket")
}

func send(t *testing.T, ws *websocket.Conn, frame string) {
	t.Helper()
	_ = ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		t.Fatalf("send %s: %v", frame, err)
	}
}

func next(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var f map[string]any
	if err := ws.ReadJSON(&f); err != nil {
		t.Fatalf("read a frame: %v", err)
	}
	return f
}
