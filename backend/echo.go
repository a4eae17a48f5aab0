package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/pause"
	"github.com/harnest/harnest/runtime"
)

// echoMaxDeltas is how many text deltas the echo answer is split into, at
// most.
const echoMaxDeltas = 4

// errEchoFail is what a turn of an echo backend with Fail set returns.
var errEchoFail = errors.New("echo backend configured to fail")

// Echo is the built-in deterministic agent. It answers "Echo: <input>",
// streamed as a few text deltas split on word boundaries, so that clients
// can be tested without a model. Its options add a thinking delta, a tool
// call with its result, a pause between events, a failure after the first
// text delta, a human approval before answering, or a client tool whose
// output goes into the answer. Data parts and files of the input come back
// as artifacts, and the answer names them (echo_parts.go).
type Echo struct {
	thinking   bool
	toolCall   bool
	delay      time.Duration
	fail       bool
	approval   string // the action to have approved, or ""
	clientTool string // the client tool to call, or ""
}

// NewEcho builds an echo agent from its config section. A negative delay
// counts as no delay.
func NewEcho(cfg config.EchoBackend) *Echo {
	delay := time.Duration(cfg.DelayMs) * time.Millisecond
	if delay < 0 {
		delay = 0
	}
	return &Echo{
		thinking: cfg.Thinking,
		toolCall: cfg.ToolCall,
		delay:    delay,
		fail:     cfg.Fail,

		approval:   cfg.Approval,
		clientTool: cfg.ClientTool,
	}
}

// Run answers one turn. First, with approval set, it asks a human to
// approve the action and stops with the denial (runtime.ErrApprovalDenied
// or runtime.ErrApprovalExpired) if there is no approval; then, with
// clientTool set, it asks the client to run the tool. The events, in
// order: a thinking delta (if thinking), a tool call and its result (if
// toolCall), an artifact per data part or file, then the text deltas. With delayMs the agent pauses between
// events and returns ctx.Err() as soon as ctx is done.
func (e *Echo) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	answer := "Echo: " + turn.Input
	if label := echoPartsLabel(turn.Content); label != "" {
		answer = strings.TrimSuffix(answer, " ") + label
	}
	if e.approval != "" || e.clientTool != "" {
		// Both requests carry the input as their only argument.
		args, err := json.Marshal(map[string]string{"input": turn.Input})
		if err != nil {
			return fmt.Errorf("echo: encode arguments: %w", err)
		}
		if e.approval != "" {
			if err := e.requestApproval(ctx, turn, args); err != nil {
				return err
			}
		}
		if e.clientTool != "" {
			said, err := e.requestClientTool(ctx, turn, args)
			if err != nil {
				return err
			}
			answer += " (" + e.clientTool + " said: " + said + ")"
		}
	}

	// send emits one event, after the configured pause when it is not the
	// first (events are sent as they are made: no slice of them is kept).
	sent := 0
	send := func(event runtime.Event) error {
		if sent > 0 {
			if err := e.pause(ctx); err != nil {
				return err
			}
			if err := answerSteers(turn, emit); err != nil { // echo_steer.go
				return err
			}
		}
		sent++
		if err := ctx.Err(); err != nil {
			return err
		}
		return emit(event)
	}

	if e.thinking {
		if err := send(runtime.Event{Type: runtime.EventThinkingDelta, Delta: "Repeating the input back."}); err != nil {
			return err
		}
	}

	if e.toolCall {
		args, err := json.Marshal(map[string]string{"text": turn.Input})
		if err != nil {
			return fmt.Errorf("echo: encode tool arguments: %w", err)
		}
		output, err := json.Marshal(turn.Input)
		if err != nil {
			return fmt.Errorf("echo: encode tool output: %w", err)
		}
		callID := echoCallID(turn.ResponseID)
		if err := send(runtime.Event{Type: runtime.EventToolCall, ID: callID, Name: "echo", Arguments: args}); err != nil {
			return err
		}
		if err := send(runtime.Event{Type: runtime.EventToolResult, CallID: callID, Name: "echo", Output: output}); err != nil {
			return err
		}
	}

	artifacts, err := echoArtifacts(ctx, turn.Content)
	if err != nil {
		return err
	}
	for _, artifact := range artifacts {
		if err := send(artifact); err != nil {
			return err
		}
	}

	var room [echoMaxDeltas]string
	for _, delta := range appendEchoDeltas(room[:0], answer) {
		if err := send(runtime.Event{Type: runtime.EventTextDelta, Delta: delta}); err != nil {
			return err
		}
		if e.fail {
			break // nothing after the first text delta is ever sent
		}
	}

	if e.fail {
		return errEchoFail
	}
	return answerSteers(turn, emit)
}

// requestApproval asks for approval of the configured action. It returns
// nil when approved, and the runtime's error otherwise (a denial, an
// expiry, a cancellation).
func (e *Echo) requestApproval(ctx context.Context, turn *runtime.Turn, args json.RawMessage) error {
	if turn.RequestApproval == nil {
		return errors.New("echo: approval is configured but the runtime offers no approvals for this turn")
	}
	return turn.RequestApproval(ctx, runtime.ApprovalRequest{
		Action:    e.approval,
		Message:   fmt.Sprintf("Approve %s? The echo agent will then answer.", e.approval),
		Arguments: args,
	})
}

// requestClientTool asks the client to run the configured tool and returns
// its output as text for the answer: a JSON string as the string itself,
// anything else as compact JSON.
func (e *Echo) requestClientTool(ctx context.Context, turn *runtime.Turn, args json.RawMessage) (string, error) {
	if turn.RequestClientTool == nil {
		return "", errors.New("echo: clientTool is configured but the runtime offers no client tools for this turn")
	}
	output, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{
		Name:      e.clientTool,
		Arguments: args,
	})
	if err != nil {
		return "", err
	}
	return outputText(output), nil
}

// outputText shows a JSON value as text: a string as itself, anything else
// as compact JSON ("null" when there is no value at all).
func outputText(output json.RawMessage) string {
	trimmed := bytes.TrimSpace(output)
	if len(trimmed) == 0 {
		return "null"
	}
	var s string
	if trimmed[0] == '"' && json.Unmarshal(trimmed, &s) == nil {
		return s
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, output); err != nil {
		return string(output)
	}
	return compact.String()
}

// pause waits for the configured delay, or until ctx is done.
func (e *Echo) pause(ctx context.Context) error {
	if e.delay <= 0 {
		return nil
	}
	return pause.For(ctx, e.delay)
}

// echoCallID makes a tool call id that is unique per turn: "call_" followed
// by the response id (without its "resp_" prefix, if it has one).
func echoCallID(responseID string) string {
	if responseID == "" {
		return "call_echo_1"
	}
	return "call_" + strings.TrimPrefix(responseID, "resp_")
}

// echoDeltas splits answer into at most echoMaxDeltas pieces, cutting only
// after a space, so that the pieces concatenate to answer exactly.
func echoDeltas(answer string) []string { return appendEchoDeltas(nil, answer) }

// appendEchoDeltas appends the deltas of echoDeltas to dst: substrings of
// answer, so a turn's deltas cost no allocation when dst has room.
func appendEchoDeltas(dst []string, answer string) []string {
	// Words end after each space (the space stays with its word); the
	// deltas are groups of whole words, so each is a substring.
	words := strings.Count(answer, " ")
	if !strings.HasSuffix(answer, " ") {
		words++ // the last word has no space after it
	}
	if answer == "" {
		return dst
	}
	groups := min(echoMaxDeltas, words)
	start, word := 0, 0 // where the current group starts; words passed
	end := 0            // the group ends after this many words
	for g := range groups {
		end = (g + 1) * words / groups
		i := start
		for word < end {
			if sp := strings.IndexByte(answer[i:], ' '); sp >= 0 {
				i += sp + 1
			} else {
				i = len(answer)
			}
			word++
		}
		dst = append(dst, answer[start:i])
		start = i
	}
	return dst
}
