package openaiapi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// Several function calls in one response: when the agent asks for several
// client tools at once (one model step's calls), the runtime announces
// each with its own event, all naming one wait, and the response ends
// with every function_call item (the door asks for this with
// ResponseRequest.ParallelClientTools, unless the request sets
// "parallel_tool_calls": false). The call_id of such a call is the wait ID,
// ".", its index and ".", how many calls there are; the caller answers
// them all in its next request (function_call_output items, in any
// order), which the door hands to the runtime as one answer: the outputs
// as a JSON array, in the calls' order. A call left unanswered is refused
// (400, naming its call_id), and nothing is answered.

// callID is the call_id of the function_call an event announces.
func callID(c *runtime.ClientToolInfo) string {
	if c.Batch == nil {
		return c.ID
	}
	return batchCallID(c.ID, c.Batch.Index, c.Batch.Size)
}

func batchCallID(wait string, index, size int) string {
	return wait + "." + strconv.Itoa(index) + "." + strconv.Itoa(size)
}

// parseBatchCallID reads the call_id of a call of several; ok is false for
// any other call_id.
func parseBatchCallID(id string) (wait string, index, size int, ok bool) {
	parts := strings.Split(id, ".")
	if len(parts) != 3 || parts[0] == "" {
		return "", 0, 0, false
	}
	i, err1 := strconv.Atoi(parts[1])
	n, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || n < 2 || i < 0 || i >= n {
		return "", 0, 0, false
	}
	return parts[0], i, n, true
}

// callOutput is one function_call_output of a request.
type callOutput struct {
	param  string // where it is in the request: input[i]
	callID string
	output json.RawMessage
}

// joinOutputs makes the one answer of a request's function_call_outputs:
// one output of a single call, or every output of the calls of one wait.
func joinOutputs(outputs []callOutput) (*waitAnswer, failure, bool) {
	if len(outputs) == 1 {
		if _, _, _, batched := parseBatchCallID(outputs[0].callID); !batched {
			return &waitAnswer{CallID: outputs[0].callID, Output: outputs[0].output}, failure{}, true
		}
	}
	var wait string
	var joined []json.RawMessage
	for _, o := range outputs {
		w, i, n, ok := parseBatchCallID(o.callID)
		switch {
		case !ok:
			return nil, invalid(o.param+".call_id", "one_answer", "Send one function_call_output per request, unless the response asked for several calls at once: "+
				"then send the outputs of all its calls (and only those) together"), false
		case wait == "":
			wait, joined = w, make([]json.RawMessage, n)
		case w != wait || n != len(joined):
			return nil, invalid(o.param+".call_id", "one_answer", "These function_call_outputs answer calls of different responses: answer the calls of one response per request"), false
		}
		if joined[i] != nil {
			return nil, invalid(o.param+".call_id", "duplicate_call_id", "call_id "+strconv.Quote(o.callID)+" is answered twice"), false
		}
		joined[i] = o.output
	}
	for i, out := range joined {
		if out == nil {
			missing := batchCallID(wait, i, len(joined))
			return nil, invalid("input", "missing_function_call_output", "No function_call_output for call_id "+strconv.Quote(missing)+
				": the response asked for "+strconv.Itoa(len(joined))+" calls at once; send the outputs of all of them in one request"), false
		}
	}
	b, _ := json.Marshal(joined)
	return &waitAnswer{CallID: wait, Output: b}, failure{}, true
}
