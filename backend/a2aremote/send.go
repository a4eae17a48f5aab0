package a2aremote

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/runtime"
)

// Polling a task that is not final yet: the first wait and the longest.
const (
	pollFirst = 25 * time.Millisecond
	pollMax   = time.Second
)

// message is the turn's input as an A2A user message in the session's
// remote context, on the task that waits for input if there is one: text
// parts as text, media parts as raw bytes with their media type.
func message(ctx context.Context, turn *runtime.Turn, s sessionState) (*a2a.Message, error) {
	var parts []*a2a.Part
	for _, c := range turn.Content {
		if c.Type == "text" {
			if c.Text != "" {
				parts = append(parts, a2a.NewTextPart(c.Text))
			}
			continue
		}
		if c.Data == nil {
			continue
		}
		b, err := c.Data(ctx)
		if err != nil {
			return nil, err
		}
		p := a2a.NewRawPart(b)
		p.MediaType = c.MediaType
		p.Filename = c.AssetID
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		parts = append(parts, a2a.NewTextPart(turn.Input))
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	msg.ContextID = s.ContextID
	msg.TaskID = a2a.TaskID(s.TaskID)
	return msg, nil
}

// restart is msg as the first message of a new task in the same context.
func restart(msg *a2a.Message) *a2a.Message {
	m := *msg
	m.ID = a2a.NewMessageID()
	m.TaskID = ""
	return &m
}

// cancelRequest asks the remote to cancel its task.
func cancelRequest(id a2a.TaskID) *a2a.CancelTaskRequest {
	return &a2a.CancelTaskRequest{ID: id}
}

// send runs the exchange: streamed when the card says the agent streams,
// else sent with returnImmediately (blocking false in 0.3), so that the
// task is known at once and can be cancelled, and then polled until it is
// final; a stream that ends before the task is final is polled too.
func (a *Agent) send(ctx context.Context, rem *remote, msg *a2a.Message, x *exchange) error {
	req := &a2a.SendMessageRequest{Message: msg}
	if rem.streams() {
		for ev, err := range rem.client.SendStreamingMessage(ctx, req) {
			if err != nil {
				return err
			}
			if err := x.take(ctx, ev); err != nil {
				return err
			}
			if x.final() {
				break // an interrupted state need not close the stream
			}
		}
	} else {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
		res, err := rem.client.SendMessage(ctx, req)
		if err != nil {
			return err
		}
		if err := x.take(ctx, res); err != nil {
			return err
		}
	}
	if x.final() {
		return nil
	}
	if x.taskID == "" {
		return errBadResponse() // neither an answer nor a task to wait for
	}
	return a.poll(ctx, rem, x)
}

// poll reads the task until it is final, waiting longer each time.
func (a *Agent) poll(ctx context.Context, rem *remote, x *exchange) error {
	wait := pollFirst
	for !x.final() {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		task, err := rem.client.GetTask(ctx, &a2a.GetTaskRequest{ID: x.taskID})
		if err != nil {
			return err
		}
		if err := x.apply(task); err != nil {
			return err
		}
		wait = min(wait*2, pollMax)
	}
	return nil
}
