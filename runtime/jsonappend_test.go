package runtime

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// The reference encoders: encoding/json through reflection, as the runtime
// encoded events and envelopes before the append-based encoder. Every
// generated value must encode to the same bytes both ways.

func referenceEvent(e Event) ([]byte, error) {
	type plain Event
	if e.Envelope != nil {
		env := e.Envelope
		return json.Marshal(struct {
			Type       string `json:"type"`
			Sequence   int    `json:"sequence"`
			ResponseID string `json:"responseId"`
			SessionID  string `json:"sessionId"`
			EnvelopeBody
		}{e.Type, e.Sequence, env.ID, env.SessionID, env.EnvelopeBody})
	}
	if e.Type != EventStateDelta {
		return json.Marshal(plain(e))
	}
	delta := e.StateDelta
	if delta == nil {
		delta = map[string]json.RawMessage{}
	}
	return json.Marshal(struct {
		plain
		Delta map[string]json.RawMessage `json:"delta"`
	}{plain(e), delta})
}

// gen makes random values with the characters and shapes that JSON
// encoders get wrong: HTML characters, control characters, quotes,
// invalid UTF-8, line separators, raw JSON with spaces.
type gen struct{ r *rand.Rand }

var genPieces = []string{"", "a", "hello", "<", ">", "&", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
	"\xff", "\xe2\x80", "\u2028", "\u2029", "é", "日本", "🙂", "</script>", " "}

var genRaw = []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`null`), json.RawMessage(`true`),
	json.RawMessage(` { "a" : [1, 2.5, "x<y"] } `), json.RawMessage(`"<b>&"`), json.RawMessage(`[ ]`),
	json.RawMessage(`{"k":{"n":null}}`), json.RawMessage("12"), json.RawMessage(`"\u2028"`)}

func (g gen) str() string {
	var b []byte
	for n := g.r.IntN(4); n > 0; n-- {
		b = append(b, genPieces[g.r.IntN(len(genPieces))]...)
	}
	return string(b)
}

func (g gen) raw() json.RawMessage { return genRaw[g.r.IntN(len(genRaw))] }

func (g gen) usage() *Usage {
	if g.r.IntN(2) == 0 {
		return nil
	}
	return &Usage{InputTokens: g.r.IntN(100), OutputTokens: g.r.IntN(100), TotalTokens: g.r.IntN(200)}
}

var genTypes = []string{EventCreated, EventTextDelta, EventThinkingDelta, EventAgentActivity, EventAgentMetadata,
	EventDecisionResult, EventToolCall, EventToolResult, EventStateDelta, EventApproval, EventClientTool,
	EventInProgress, EventCompleted, EventError}

func (g gen) event() Event {
	e := Event{
		Type: genTypes[g.r.IntN(len(genTypes))], Sequence: g.r.IntN(1<<20) * (1 - 2*g.r.IntN(2)),
		ResponseID: g.str(), SessionID: g.str(), Delta: g.str(), Agent: g.str(),
		Activity: g.str(), Target: g.str(), Code: g.str(), Framework: g.str(), Model: g.str(),
		Provider: g.str(), FinishReason: g.str(), Usage: g.usage(), Raw: g.raw(), Value: g.raw(),
		ID: g.str(), Name: g.str(), Arguments: g.raw(), CallID: g.str(), Output: g.raw(),
		Metadata: g.raw(), Error: g.str(),
	}
	if g.r.IntN(3) == 0 {
		e.Approval = &ApprovalInfo{ID: g.str(), CallID: g.str(), Action: g.str(), Message: g.str(), ExpiresAt: g.str()}
	}
	if g.r.IntN(3) == 0 {
		e.ClientTool = &ClientToolInfo{ID: g.str(), CallID: g.str(), Name: g.str(), Arguments: g.raw(), ExpiresAt: g.str()}
	}
	if e.Type == EventStateDelta && g.r.IntN(4) > 0 {
		e.StateDelta = map[string]json.RawMessage{}
		for n := g.r.IntN(4); n > 0; n-- {
			e.StateDelta[g.str()] = g.raw()
		}
	}
	if g.r.IntN(4) == 0 {
		env := g.envelope()
		e.Envelope = &env
	}
	return e
}

func (g gen) envelope() Envelope {
	env := Envelope{ID: g.str(), SessionID: g.str(), EnvelopeBody: EnvelopeBody{
		Status: g.str(), OutputText: g.str(), Metadata: g.raw(), Usage: g.usage(), Result: g.raw(),
		ApprovalID: g.str(), ClientToolID: g.str(),
	}}
	if g.r.IntN(5) > 0 {
		env.Output = []OutputItem{}
	}
	for n := g.r.IntN(4); n > 0; n-- {
		it := OutputItem{Type: g.str(), Role: g.str(), Agent: g.str(), Activity: g.str(), Target: g.str(),
			Code: g.str(), Framework: g.str(), Usage: g.usage(), Model: g.str(), Provider: g.str(),
			FinishReason: g.str(), Raw: g.raw(), Value: g.raw(), ID: g.str(), Name: g.str(),
			Arguments: g.raw(), CallID: g.str(), Output: g.raw()}
		for m := g.r.IntN(3); m > 0; m-- {
			it.Content = append(it.Content, ContentPart{Type: g.str(), Text: g.str()})
		}
		env.Output = append(env.Output, it)
	}
	if g.r.IntN(3) == 0 {
		env.Error = &EnvelopeError{Code: g.str()}
	}
	if g.r.IntN(3) == 0 {
		env.RequiredAction = &RequiredAction{Type: g.str(), ID: g.str(), CallID: g.str(), Action: g.str(),
			Message: g.str(), Name: g.str(), Arguments: g.raw(), ExpiresAt: g.str()}
	}
	return env
}

func TestAppendEncoderMatchesEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for i := 0; i < 20000; i++ {
		e := g.event()
		want, wantErr := referenceEvent(e)
		got, gotErr := e.encode()
		if (wantErr != nil) != (gotErr != nil) || (wantErr == nil && !bytes.Equal(got, want)) {
			t.Fatalf("event %d:\n got %s (%v)\nwant %s (%v)\nvalue %#v", i, got, gotErr, want, wantErr, e)
		}
		if e.Envelope != nil {
			// The event and the receipt made from one encoding of the body.
			shared, receipt, err := completedWithReceipt(e.Envelope)
			if err == nil {
				shared.Sequence, shared.Type = e.Sequence, e.Type
				gotEvent, _ := shared.encode()
				type plainEnv Envelope
				wantReceipt, _ := json.Marshal(plainEnv(*e.Envelope))
				if !bytes.Equal(gotEvent, want) || !bytes.Equal(receipt, wantReceipt) {
					t.Fatalf("shared encoding %d:\n got %s\n     %s\nwant %s\n     %s", i, gotEvent, receipt, want, wantReceipt)
				}
			} else if wantErr == nil {
				t.Fatalf("shared encoding %d: %v", i, err)
			}
		}
		env := g.envelope()
		type plain Envelope // no methods: encoding/json's own encoding
		want, wantErr = json.Marshal(plain(env))
		got, gotErr = env.encode()
		if (wantErr != nil) != (gotErr != nil) || (wantErr == nil && !bytes.Equal(got, want)) {
			t.Fatalf("envelope %d:\n got %s (%v)\nwant %s (%v)", i, got, gotErr, want, wantErr)
		}
	}
}

// Invalid raw JSON is an error, as encoding/json reports it.
func TestAppendEncoderRefusesInvalidRawJSON(t *testing.T) {
	e := Event{Type: EventToolCall, Arguments: json.RawMessage(`{"a":`)}
	if _, err := e.encode(); err == nil {
		t.Fatal("invalid arguments encoded without an error")
	}
}

// Transcript messages are what encoding/json writes for a Message.
func TestTranscriptMessageMatchesEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(3, 4))}
	for i := 0; i < 2000; i++ {
		r := &Response{ID: g.str()}
		text, now := g.str(), g.str()
		content := jsonString(g.str())
		for _, m := range [][]byte{r.appendMessage(nil, "user", content, "", now), r.appendMessage(nil, "assistant", nil, text, now)} {
			var got Message
			if err := json.Unmarshal(m, &got); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			meta, _ := json.Marshal(map[string]string{"responseId": r.ID})
			want := Message{ID: got.ID, Role: got.Role, Content: content, CreatedAt: now, Metadata: meta}
			if got.Role == "assistant" {
				want.Content = jsonString(text)
			}
			if b, _ := json.Marshal(want); !bytes.Equal(b, m) {
				t.Fatalf("message:\n got %s\nwant %s", m, b)
			}
		}
	}
}

// The fast timestamp is time.Format's, for every kind of instant.
func TestTimestampMatchesFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		at := time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)).In(time.FixedZone("x", r.IntN(50000)-25000))
		if got, want := timestamp(at), at.UTC().Format(timestampLayout); got != want {
			t.Fatalf("%v: got %s, want %s", at, got, want)
		}
	}
}
