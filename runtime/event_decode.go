package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// Typed events and receipts for the doors. A door gets the events of a
// response it runs as Events (Response.Events, Response.Each) and the
// events it reads from the log (Follow, LoggedEvents) as Frames; a Frame's
// Event is the same typed value, decoded here once, so no door keeps a
// JSON mirror of an event or an envelope. Receipts come typed the same
// way (Outcome.Envelope, Service.Receipt, ParseReceipt).

// Event is the frame as a typed event: what the runtime emitted, read back
// from its JSON (response.completed carries its Envelope, a state delta
// its StateDelta). Its JSON() is the logged bytes. A frame that does not
// decode (the log holds only what the runtime wrote, so this is not
// expected) gives an error and an event with only its type and sequence.
func (f Frame) Event() (Event, error) {
	e, err := DecodeEvent(f.JSON)
	if err != nil {
		return Event{Type: f.Type, Sequence: f.Sequence, encoded: f.JSON}, err
	}
	return e, nil
}

// DecodeEvent reads an event from the JSON the runtime wrote for it (see
// event_json.go): the inverse of Event.JSON.
func DecodeEvent(b []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	// The type decides the shape; it is the first member the runtime
	// writes, so the common case reads it without a full pass.
	if t, ok := leadingType(b); ok {
		head.Type = t
	} else if err := json.Unmarshal(b, &head); err != nil {
		return Event{}, fmt.Errorf("runtime: decode event: %w", err)
	}
	var e Event
	var err error
	switch head.Type {
	case "":
		return Event{}, fmt.Errorf("runtime: decode event: no type")
	case EventCompleted:
		e, err = decodeCompleted(b)
	case EventStateDelta:
		e, err = decodeStateDelta(b)
	default:
		err = json.Unmarshal(b, &e)
	}
	if err != nil {
		return Event{}, fmt.Errorf("runtime: decode %s event: %w", head.Type, err)
	}
	e.encoded = b
	return e, nil
}

// leadingType reads {"type":"<plain string>" at the start of b, as the
// runtime writes it.
func leadingType(b []byte) (string, bool) {
	const prefix = `{"type":"`
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return "", false
	}
	for i := len(prefix); i < len(b); i++ {
		switch b[i] {
		case '\\':
			return "", false
		case '"':
			return string(b[len(prefix):i]), true
		}
	}
	return "", false
}

// eventHead is the members every event starts with, as the decoders of
// the events with a shape of their own read them.
type eventHead struct {
	Type       string `json:"type"`
	Sequence   int    `json:"sequence"`
	ResponseID string `json:"responseId"`
	SessionID  string `json:"sessionId"`
}

// event is an event with the head's members.
func (h eventHead) event() Event {
	return Event{Type: h.Type, Sequence: h.Sequence, ResponseID: h.ResponseID, SessionID: h.SessionID}
}

// decodeCompleted reads response.completed: the envelope's body after its
// type, sequence and IDs.
func decodeCompleted(b []byte) (Event, error) {
	var w struct {
		eventHead
		EnvelopeBody
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return Event{}, err
	}
	e := w.event()
	e.Envelope = &Envelope{ID: w.ResponseID, SessionID: w.SessionID, EnvelopeBody: w.EnvelopeBody}
	return e, nil
}

// decodeStateDelta reads response.state_delta, whose delta is an object.
func decodeStateDelta(b []byte) (Event, error) {
	var w struct {
		eventHead
		Agent string                     `json:"agent"`
		Delta map[string]json.RawMessage `json:"delta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return Event{}, err
	}
	if w.Delta == nil {
		w.Delta = map[string]json.RawMessage{}
	}
	e := w.event()
	e.Agent, e.StateDelta = w.Agent, w.Delta
	return e, nil
}

// ParseReceipt reads a receipt (GET /responses/{id}, CancelResponse,
// Answer.Body) as its envelope.
func ParseReceipt(receipt []byte) (Envelope, error) {
	var env Envelope
	if err := json.Unmarshal(receipt, &env); err != nil {
		return Envelope{}, fmt.Errorf("runtime: decode receipt: %w", err)
	}
	return env, nil
}

// ReceiptState is where a response stands, as its receipt says: the
// receipt without its output, for a caller that needs only that (what it
// waits for, how it ended). Reading it allocates nothing for the output.
type ReceiptState struct {
	ID             string          `json:"id"`
	SessionID      string          `json:"sessionId"`
	Status         string          `json:"status"`
	Error          *EnvelopeError  `json:"error"`
	RequiredAction *RequiredAction `json:"requiredAction"`
	// ApprovalID and ClientToolID name the last wait the response resumed
	// from (Envelope's).
	ApprovalID   string `json:"approvalId"`
	ClientToolID string `json:"clientToolId"`
}

// ParseReceiptState reads where a response stands from its receipt.
func ParseReceiptState(receipt []byte) (ReceiptState, error) {
	var st ReceiptState
	if err := json.Unmarshal(receipt, &st); err != nil {
		return ReceiptState{}, fmt.Errorf("runtime: decode receipt: %w", err)
	}
	return st, nil
}

// Receipt returns the receipt of one of the user's responses as its
// envelope (GetResponse gives its JSON). A receipt that does not decode is
// a store failure.
func (s *Service) Receipt(ctx context.Context, p Principal, sessionID, responseID string) (Envelope, error) {
	b, err := s.GetResponse(ctx, p, sessionID, responseID)
	if err != nil {
		return Envelope{}, err
	}
	env, err := ParseReceipt(b)
	if err != nil {
		return Envelope{}, s.storeFailure(err)
	}
	return env, nil
}

// Receipt is the receipt the response recorded at this boundary, typed;
// false when this replica recorded none (another replica claimed the run:
// its receipt will be that replica's).
func (o Outcome) Receipt() (Envelope, bool) {
	return o.Envelope, o.Body != nil
}

// Body is the envelope's body that response.completed carries (nil for any
// other event): what a door folds into its own final frame.
func (e Event) Body() *EnvelopeBody {
	if e.Envelope == nil {
		return nil
	}
	return &e.Envelope.EnvelopeBody
}
