package chat

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Handlers receive the deltas of a call as they arrive, in order. Either
// may be nil. An error a handler returns stops the call, and Complete
// returns that error as is.
type Handlers struct {
	Text      func(delta string) error
	Reasoning func(delta string) error
}

// Usage is the token counts of one call, as the endpoint reported them.
type Usage struct {
	InputTokens  int // prompt_tokens
	OutputTokens int // completion_tokens
	TotalTokens  int // total_tokens (their sum when the endpoint sent none)
}

// Result is one finished call.
type Result struct {
	Text      string // the whole text
	Reasoning string // the whole reasoning, when the provider sent any
	// ToolCalls are the calls the model asked for, assembled from the
	// streamed fragments, in order. A call the provider sent without an ID
	// gets "call_<n>" (n counting from 1); empty arguments become "{}".
	ToolCalls    []ToolCall
	FinishReason string // as sent: stop, tool_calls, length, ...
	// Usage holds the exact counts when the endpoint sent them, else nil.
	Usage    *Usage
	Model    string // the model the endpoint reported, else the configured one
	Provider string // a short provider name derived from the base URL host
	// Raw is the provider's own usage object as sent, nil when none.
	Raw json.RawMessage
}

// wireUsage is a usage object on the wire.
type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// wireToolCall is a tool call or a fragment of one on the wire.
type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// assembly collects a call's pieces as they arrive.
type assembly struct {
	h         Handlers
	text      strings.Builder
	reasoning strings.Builder
	calls     []*ToolCall
	byIndex   map[int]*ToolCall
	finish    string
	model     string
	usage     json.RawMessage
}

func newAssembly(h Handlers) *assembly {
	return &assembly{h: h, byIndex: map[int]*ToolCall{}}
}

// addText hands a text delta to its handler and keeps it.
func (a *assembly) addText(delta string) error {
	if delta == "" {
		return nil
	}
	a.text.WriteString(delta)
	return a.deliver(a.h.Text, delta)
}

// addReasoning hands a reasoning delta to its handler and keeps it.
func (a *assembly) addReasoning(delta string) error {
	if delta == "" {
		return nil
	}
	a.reasoning.WriteString(delta)
	return a.deliver(a.h.Reasoning, delta)
}

func (a *assembly) deliver(handler func(string) error, delta string) error {
	if handler == nil {
		return nil
	}
	if err := handler(delta); err != nil {
		return &handlerError{err}
	}
	return nil
}

// addToolCall merges one fragment: by its index, or, when the provider
// sent none, into the last call unless the fragment starts a new one (an
// ID of its own).
func (a *assembly) addToolCall(f wireToolCall) {
	var call *ToolCall
	switch {
	case f.Index != nil:
		call = a.byIndex[*f.Index]
		if call == nil {
			call = a.newCall()
			a.byIndex[*f.Index] = call
		}
	case len(a.calls) > 0 && (f.ID == "" || f.ID == a.calls[len(a.calls)-1].ID):
		call = a.calls[len(a.calls)-1]
	default:
		call = a.newCall()
	}
	if f.ID != "" {
		call.ID = f.ID
	}
	if f.Type != "" {
		call.Type = f.Type
	}
	call.Function.Name += f.Function.Name
	call.Function.Arguments += f.Function.Arguments
}

func (a *assembly) newCall() *ToolCall {
	call := &ToolCall{}
	a.calls = append(a.calls, call)
	return call
}

// result is what was assembled, defaults filled in.
func (a *assembly) result(c *Client) *Result {
	res := &Result{
		Text:         a.text.String(),
		Reasoning:    a.reasoning.String(),
		FinishReason: a.finish,
		Model:        a.model,
		Provider:     c.provider,
	}
	if res.Model == "" {
		res.Model = c.opts.Model
	}
	for i, call := range a.calls {
		tc := *call
		if tc.ID == "" {
			tc.ID = "call_" + strconv.Itoa(i+1)
		}
		if tc.Type == "" {
			tc.Type = typeFunction
		}
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			tc.Function.Arguments = "{}"
		}
		res.ToolCalls = append(res.ToolCalls, tc)
	}
	var u wireUsage
	if len(a.usage) > 0 && json.Unmarshal(a.usage, &u) == nil {
		res.Raw = a.usage
		res.Usage = &Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if res.Usage.TotalTokens == 0 {
			res.Usage.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
	}
	return res
}

// setUsage keeps the last usage object that is not null.
func (a *assembly) setUsage(raw json.RawMessage) {
	if len(raw) > 0 && string(raw) != "null" {
		a.usage = append(json.RawMessage(nil), raw...)
	}
}

// handlerError marks an error a handler returned, to be returned as is.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }
