package live_test

import (
	"strings"
	"testing"
)

// response.create takes onBusy: with enqueue, a message on a session
// another socket's response holds is accepted (response.created at once),
// then runs once that response ends and streams to its end; a wrong
// strategy is an idle error that keeps the socket.
func TestOnBusyEnqueue(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, sid := ts.connect("")
		other, _ := ts.connect(sid)
		other.send(`{"type":"response.create","input":"hi","onBusy":"later"}`)
		if f := other.next(); f["type"] != "error" || !strings.Contains(f["error"].(string), "onBusy") {
			t.Fatalf("wrong strategy %v", f)
		}
		c.send(`{"type":"response.create","input":"block"}`)
		<-agent.started
		other.send(`{"type":"response.create","input":"hi","onBusy":"enqueue"}`)
		if f := other.next(); f["type"] != "response.created" {
			t.Fatalf("queued message's first frame %v", f)
		}
		agent.release <- struct{}{}
		if frames := c.until("response.completed"); frames[len(frames)-1]["outputText"] != "working done" {
			t.Fatalf("first %v", frames)
		}
		frames := other.until("response.completed")
		if last := frames[len(frames)-1]; last["status"] != "completed" || last["outputText"] == "" {
			t.Fatalf("queued %v", frames)
		}
	})
}
