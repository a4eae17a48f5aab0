package live_test

import (
	"context"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// steerAgent says "working", waits for a steer, takes it and answers it.
type steerAgent struct{}

func (steerAgent) TakesSteers() bool { return true }

func (steerAgent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "working. "}); err != nil {
		return err
	}
	select {
	case <-turn.Steers.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	steers, err := turn.Steers.Take()
	if err != nil {
		return err
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "steered to " + steers[0].Input})
}

// response.steer hands a message to the socket's running response: it is
// acknowledged (response.steer.accepted, no sequence), the stream says
// response.steered, and the turn answers it.
func TestSteerFrame(t *testing.T) {
	eachStore(t, setup{Agent: steerAgent{}}, func(t *testing.T, ts *liveServer) {
		c, _ := ts.connect("")
		c.send(`{"type":"response.create","input":"go","requestId":"g"}`)
		rid := c.until("response.text.delta")[0]["responseId"].(string)
		c.send(`{"type":"response.steer","responseId":"resp_other","input":"left"}`)
		if f := c.next(); f["type"] != "error" || f["error"] != "Invalid response.steer frame" {
			t.Fatalf("steer of another response: %v", f)
		}
		c.send(`{"type":"response.steer","responseId":"` + rid + `","input":"left","requestId":"s1"}`)
		// The ack and the turn's events travel apart: the turn may take the
		// steer (response.steered), and even complete, before the ack is
		// written.
		var ack map[string]any
		var frames []map[string]any
		for _, f := range c.until("response.completed") {
			if f["type"] == "response.steer.accepted" {
				ack = f
				continue
			}
			frames = append(frames, f)
		}
		if ack == nil {
			ack = c.next()
		}
		if ack == nil || ack["responseId"] != rid || ack["requestId"] != "s1" || ack["steerId"] == nil || ack["sequence"] != nil {
			t.Fatalf("ack = %v", ack)
		}
		if names(frames) != "response.steered,response.text.delta,response.completed" {
			t.Fatalf("after the steer: %s", names(frames))
		}
		checkSequences(t, frames, 2)
		if st := frames[0]["steer"].(map[string]any); st["id"] != ack["steerId"] || st["input"] != "left" {
			t.Fatalf("response.steered = %v", frames[0])
		}
		if last := frames[len(frames)-1]; last["outputText"] != "working. steered to left" {
			t.Fatalf("completed = %v", last)
		}
	})
}

// An agent that takes no steers refuses them (response.steer.rejected,
// steer_unsupported); the response goes on.
func TestSteerFrameRefused(t *testing.T) {
	agent := newTestAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *liveServer) {
		c, _ := ts.connect("")
		c.send(`{"type":"response.create","input":"block"}`)
		rid := c.until("response.text.delta")[0]["responseId"].(string)
		<-agent.started
		c.send(`{"type":"response.steer","responseId":"` + rid + `","input":"left"}`)
		if f := c.next(); f["type"] != "response.steer.rejected" || f["code"] != "steer_unsupported" || f["responseId"] != rid {
			t.Fatalf("refusal = %v", f)
		}
		agent.release <- struct{}{}
		if last := c.until("response.completed"); last[len(last)-1]["status"] != "completed" {
			t.Fatalf("the response did not go on: %v", last)
		}
	})
}
