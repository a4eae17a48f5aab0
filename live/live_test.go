package live_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/live"
)

func TestTurn(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"hello there","requestId":"r1","metadata":{"k": [1, 2]}}`)
		frames := c.until("response.completed")
		if names(frames) != "response.created,response.text.delta,response.text.delta,response.text.delta,response.completed" {
			t.Fatalf("frames %s", names(frames))
		}
		checkSequences(t, frames, 0)
		rid := frames[0]["responseId"].(string)
		for _, f := range frames {
			if f["requestId"] != "r1" || f["responseId"] != rid || f["sessionId"] != sid {
				t.Fatalf("frame without the response's IDs: %v", f)
			}
		}
		if m, _ := json.Marshal(frames[0]["metadata"]); string(m) != `{"k":[1,2]}` {
			t.Fatalf("created metadata %s", m)
		}
		last := frames[len(frames)-1]
		if last["status"] != "completed" || last["outputText"] != "Echo: hello there" {
			t.Fatalf("completed %v", last)
		}
		receipt := ts.receipt(rid, sid)
		if receipt["status"] != "completed" || receipt["outputText"] != "Echo: hello there" || receipt["id"] != rid {
			t.Fatalf("receipt %v", receipt)
		}
		// A second turn on the same socket; without requestId, created still
		// carries it as null and the other frames leave it out.
		c.send(`{"type":"response.create","input":"again"}`)
		frames = c.until("response.completed")
		checkSequences(t, frames, 0)
		if v, has := frames[0]["requestId"]; !has || v != nil {
			t.Fatalf("created without requestId: %v", frames[0])
		}
		for _, f := range frames[1:] {
			if _, has := f["requestId"]; has {
				t.Fatalf("frame with a requestId nobody gave: %v", f)
			}
		}
		msgs := ts.get("/sessions/" + sid + "/messages").JSON(t)["messages"].([]any)
		if len(msgs) != 4 {
			t.Fatalf("transcript has %d messages, want 4", len(msgs))
		}
		c.send(`{"type":"session.close"}`)
		c.mustClose(websocket.CloseNormalClosure, "")
	})
}

// The frames of a live response are the SSE frames of the same response,
// with requestId added.
func TestFramesMatchSSE(t *testing.T) {
	ts := newLiveServer(t, "", setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Echo: &config.EchoBackend{ToolCall: true, Thinking: true}}
		c.Spec.Output.Thinking = true
	}})
	c, _ := ts.connect("")
	c.send(`{"type":"response.create","input":"one two three four five","requestId":"q"}`)
	var live []map[string]any
	for _, f := range c.until("response.completed") {
		delete(f, "requestId")
		live = append(live, f)
	}
	r := ts.post("/responses", `{"input":"one two three four five","stream":true}`)
	var sse []map[string]any
	for _, block := range strings.Split(string(r.Body), "\n\n") {
		for _, line := range strings.Split(block, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var v map[string]any
				if err := json.Unmarshal([]byte(data), &v); err != nil {
					t.Fatal(err)
				}
				sse = append(sse, v)
			}
		}
	}
	norm := func(frames []map[string]any) string {
		b, _ := json.Marshal(frames)
		return normalize(string(b))
	}
	if norm(live) != norm(sse) {
		t.Fatalf("live frames\n%s\ndiffer from SSE frames\n%s", norm(live), norm(sse))
	}
}

func TestConnect(t *testing.T) {
	eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *liveServer) {
		alice, bob := ts.as(aliceToken), ts.as(bobToken)
		created := alice.post("/sessions", `{"id":"s1"}`)
		if created.Status != 201 {
			t.Fatalf("create session %d %s", created.Status, created.Body)
		}
		c, sid := alice.connect("s1")
		if sid != "s1" {
			t.Fatalf("connected to %q", sid)
		}
		c.send(`{"type":"session.close"}`)
		c.mustClose(websocket.CloseNormalClosure, "")

		// Another user's session, and an unknown one, are not found.
		for _, who := range []*liveServer{bob, alice} {
			id := "s1"
			if who == alice {
				id = "nope"
			}
			c := who.mustDial()
			c.send(`{"type":"connect","sessionId":"` + id + `"}`)
			if f := c.next(); f["type"] != "error" || f["error"] != "Session not found" || len(f) != 2 {
				t.Fatalf("connect to %s answered %v", id, f)
			}
			c.mustClose(websocket.ClosePolicyViolation, "Session not found")
		}
	})
}

func TestFirstFrameMustBeConnect(t *testing.T) {
	ts := newLiveServer(t, "", setup{})
	for _, first := range []string{
		`{"type":"response.create","input":"hi"}`,
		`{"type":"connect","x":1}`,
		`{"type":"connect","sessionId":""}`,
		`{"type":"connect","sessionId":3}`,
		`{"type":"Connect"}`,
		`{}`, `[]`, `null`, `"connect"`, `not json`,
	} {
		c := ts.mustDial()
		c.send(first)
		f := c.next()
		if f["type"] != "error" || f["error"] != "First frame must be a connect request" || len(f) != 2 {
			t.Fatalf("first frame %s answered %v", first, f)
		}
		c.mustClose(websocket.ClosePolicyViolation, "First frame must be a connect request")
	}
	// A binary first frame is no connect either.
	c := ts.mustDial()
	if err := c.ws.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"connect"}`)); err != nil {
		t.Fatal(err)
	}
	if f := c.next(); f["error"] != "First frame must be a connect request" {
		t.Fatalf("binary first frame answered %v", f)
	}
	c.mustClose(websocket.ClosePolicyViolation, "*")
}

func TestIdleErrorsKeepTheSocket(t *testing.T) {
	// Frames may be larger than inputs here, to reach the input limit.
	ts := newLiveServer(t, "", setup{
		Config: func(c *config.Config) { c.Server.Limits.MaxRequestBytes = 64 << 10 },
		Live:   func(o *live.Options) { o.MaxFrameBytes = 256 << 10 },
	})
	c, _ := ts.connect("")
	big := strings.Repeat("a", 40<<10)
	for frame, want := range map[string]string{
		`{"type":"response.create"}`:                                                          "Invalid live input frame",
		`{"type":"response.create","input":""}`:                                               "Invalid live input frame",
		`{"type":"response.create","input":"  "}`:                                             "Invalid live input frame",
		`{"type":"response.create","input":3}`:                                                "Invalid live input frame",
		`{"type":"response.create","input":"hi","stream":true}`:                               "Invalid live input frame",
		`{"type":"response.create","input":"hi","metadata":[]}`:                               "metadata must be an object",
		`{"type":"response.create","input":"hi","metadata":null}`:                             "metadata must be an object",
		`{"type":"response.create","input":"hi","requestId":7}`:                               "requestId must be a string",
		`{"type":"response.create","input":[{"type":"text"}]}`:                                "Invalid content input",
		`{"type":"response.create","input":[{"type":"image","assetId":"asset_x"}]}`:           "Invalid content input: the session has no asset \"asset_x\"",
		`{"type":"response.cancel","responseId":"resp_x"}`:                                    "Invalid live input frame",
		`{"type":"approval.decision","responseId":"r","approvalId":"a","decision":"approve"}`: "Invalid live input frame",
		`{"type":"connect"}`:                  "Invalid live input frame",
		`{"type":"session.close","now":true}`: "Invalid live input frame",
		`{"type":"nope"}`:                     "Invalid live input frame",
		`not json`:                            "Invalid live input frame",
		`{"type":"response.create","input":"` + big + big + `"}`: "Input exceeds 64KiB",
	} {
		c.send(frame)
		f := c.next()
		if f["type"] != "error" || f["error"] != want || len(f) != 2 {
			t.Fatalf("%.80s answered %v, want %q", frame, f, want)
		}
	}
	c.send(`{"type":"response.create","input":"still here","requestId":null}`)
	frames := c.until("response.completed")
	if last := frames[len(frames)-1]; last["outputText"] != "Echo: still here" {
		t.Fatalf("turn after errors %v", last)
	}
}

func TestIdleFrameLimit(t *testing.T) {
	ts := newLiveServer(t, "", setup{})
	c, _ := ts.connect("")
	for i := 0; i < 1024; i++ {
		c.send(`{"type":"bad"}`)
		if f := c.next(); f["type"] != "error" {
			t.Fatalf("frame %d answered %v", i, f)
		}
	}
	c.send(`{"type":"bad"}`)
	c.mustClose(websocket.ClosePolicyViolation, "Frame limit exceeded")
}

func TestOversizedFrame(t *testing.T) {
	ts := newLiveServer(t, "", setup{Config: func(c *config.Config) { c.Server.Limits.MaxRequestBytes = 1024 }})
	c, _ := ts.connect("")
	c.send(`{"type":"response.create","input":"` + strings.Repeat("a", 1100) + `"}`)
	c.mustClose(websocket.CloseMessageTooBig, "*")
}

func TestAgentFailureEndsTheResponseOnly(t *testing.T) {
	eachStore(t, setup{Agent: newTestAgent()}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		c.send(`{"type":"response.create","input":"fail","requestId":"f"}`)
		frames := c.until("error")
		if names(frames) != "response.created,response.text.delta,error" {
			t.Fatalf("frames %s", names(frames))
		}
		checkSequences(t, frames, 0)
		last := frames[2]
		if last["error"] != "Agent execution failed" || last["requestId"] != "f" || last["responseId"] != frames[0]["responseId"] {
			t.Fatalf("error frame %v", last)
		}
		receipt := ts.receipt(last["responseId"].(string), sid)
		if receipt["status"] != "failed" {
			t.Fatalf("receipt %v", receipt)
		}
		c.send(`{"type":"response.create","input":"next"}`)
		if frames := c.until("response.completed"); frames[len(frames)-1]["status"] != "completed" {
			t.Fatalf("next turn %v", frames)
		}
	})
}

func TestSessionBusyIsAnIdleError(t *testing.T) {
	agent := newTestAgent()
	ts := newLiveServer(t, "", setup{Agent: agent})
	c, sid := ts.connect("")
	other, _ := ts.connect(sid)
	c.send(`{"type":"response.create","input":"block"}`)
	<-agent.started
	other.send(`{"type":"response.create","input":"hi"}`)
	if f := other.next(); f["type"] != "error" || !strings.Contains(f["error"].(string), "response in progress") {
		t.Fatalf("second socket on a busy session %v", f)
	}
	agent.release <- struct{}{}
	if frames := c.until("response.completed"); frames[len(frames)-1]["outputText"] != "working done" {
		t.Fatalf("frames %v", frames)
	}
	other.send(`{"type":"response.create","input":"hi"}`)
	other.until("response.completed")
}

func TestInputParts(t *testing.T) {
	ts := newLiveServer(t, "", setup{Agent: newTestAgent()})
	c, _ := ts.connect("")
	c.send(`{"type":"response.create","input":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`)
	frames := c.until("response.completed")
	if got := frames[len(frames)-1]["outputText"]; got != "Echo: a\nb" {
		t.Fatalf("output %q", got)
	}
}

// statusOf reads a frame's status.
func statusOf(f map[string]any) string {
	s, _ := f["status"].(string)
	return s
}
