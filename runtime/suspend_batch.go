package runtime

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/harnest/harnest/store"
)

// A batch of client tool calls is one wait: the agent asks for several
// calls at once (Turn.RequestClientTools: the tool calls of one model
// step), each is announced with its own client_tool.requested event
// (ClientToolInfo.Batch places it: index and size; every event names the
// one wait ID), and the response reaches one requires_action boundary
// (its required action names the first call, and lists them all: Calls). One answer gives every
// output: a JSON array, in the order of the calls. It holds no process,
// resumes on any replica and is replayed by a later attempt as a single
// wait is (waits_durable.go). Only transports that take several calls in
// one answer ask for it (ResponseRequest.ParallelClientTools): the others
// see one call at a time.

// clientToolsFunc is Turn.RequestClientTools: nil unless the transport
// takes batches.
func (r *Response) clientToolsFunc(parallel bool) func(context.Context, []ClientToolRequest) ([]json.RawMessage, error) {
	if !parallel {
		return nil
	}
	return r.requestClientTools
}

// requestClientTools implements Turn.RequestClientTools. A single call is
// asked as RequestClientTool asks it.
func (r *Response) requestClientTools(ctx context.Context, reqs []ClientToolRequest) ([]json.RawMessage, error) {
	switch len(reqs) {
	case 0:
		return nil, nil
	case 1:
		out, err := r.requestClientTool(ctx, reqs[0])
		return []json.RawMessage{out}, err
	}
	s := r.svc
	infos := make([]*ClientToolInfo, len(reqs))
	for i, req := range reqs {
		args := req.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		callID := req.CallID
		if callID == "" {
			callID = r.ID + "_" + strconv.Itoa(i)
		}
		infos[i] = &ClientToolInfo{CallID: callID, Name: req.Name, Arguments: args, Batch: &ClientToolBatch{Index: i, Size: len(reqs)}}
	}
	id := r.waitID("client_tool_", store.WaitClientTool, infos[0].CallID)
	expires := s.now().Add(s.clientToolTTL)
	w, replayed, err := r.replayWait(ctx, id, &expires)
	if err != nil {
		return nil, err
	}
	if !replayed {
		announce := make([]Event, len(infos))
		for i, info := range infos {
			info.ID, info.ExpiresAt = id, timestamp(expires)
			announce[i] = Event{Type: EventClientTool, ClientTool: info}
		}
		first := infos[0]
		action := &RequiredAction{Type: "client_tool", ID: id, CallID: first.CallID, Name: first.Name, Arguments: first.Arguments, ExpiresAt: first.ExpiresAt}
		for _, info := range infos {
			action.Calls = append(action.Calls, ClientToolCall{CallID: info.CallID, Name: info.Name, Arguments: info.Arguments})
		}
		if w, err = r.suspend(ctx, announce, action, store.WaitClientTool, expires); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	r.resumedBy.clientTool = id
	r.mu.Unlock()
	var outputs []json.RawMessage
	if w.Status != store.WaitDone || json.Unmarshal(w.Output, &outputs) != nil || len(outputs) != len(reqs) {
		return nil, ErrClientToolFailed // unanswered, or not one output per call
	}
	return outputs, nil
}
