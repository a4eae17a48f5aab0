package jsonwrite

import (
	"bytes"
	"encoding/json"
	"testing"
)

var pieces = []string{"", "a", "hello", "<", ">", "&", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
	"\xff", "\xe2\x80", "\u2028", "\u2029", "é", "日本", "🙂", "</script>", " "}

var raws = []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`null`), json.RawMessage(`true`),
	json.RawMessage(` { "a" : [1, 2.5, "x<y"] } `), json.RawMessage(`"<b>&"`), json.RawMessage(`[ ]`),
	json.RawMessage(`{"k":{"n":null}}`), json.RawMessage("12"), json.RawMessage(`"\u2028"`), json.RawMessage(`"é"`),
	json.RawMessage(`{`), json.RawMessage(`{"a":}`), json.RawMessage(`x`), json.RawMessage(`"a\"b"`)}

// AppendString writes what encoding/json writes for a string.
func FuzzAppendString(f *testing.F) {
	for _, s := range pieces {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// AppendRaw writes what encoding/json writes for a json.RawMessage, and
// refuses what it refuses.
func TestAppendRawMatchesEncodingJSON(t *testing.T) {
	for _, raw := range raws {
		want, wantErr := json.Marshal(raw)
		got, err := AppendRaw(nil, raw)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Fatalf("%q: appended %s (%v), encoding/json %s (%v)", raw, got, err, want, wantErr)
		}
	}
}

// An object of every kind of member is what encoding/json writes for the
// same struct.
func TestObjectMatchesEncodingJSON(t *testing.T) {
	type all struct {
		S    string          `json:"s"`
		E    string          `json:"e,omitempty"`
		N    int             `json:"n"`
		R    json.RawMessage `json:"r"`
		O    json.RawMessage `json:"o,omitempty"`
		List []string        `json:"list,omitempty"`
	}
	for i, s := range pieces {
		v := all{S: s, E: s, N: i - 3, R: raws[i%4], List: pieces[:i%3]}
		want, _ := json.Marshal(v)
		o := Begin(nil)
		o.Str("s", v.S)
		o.StrOmit("e", v.E)
		o.Int("n", v.N)
		if err := o.Raw("r", v.R); err != nil {
			t.Fatal(err)
		}
		if err := o.RawOmit("o", v.O); err != nil {
			t.Fatal(err)
		}
		o.StringsOmit("list", v.List)
		if got := o.End(); !bytes.Equal(got, want) {
			t.Fatalf("%+v:\n got %s\nwant %s", v, got, want)
		}
	}
}

// BenchmarkAppendString writes the strings of a turn's events: IDs, a
// timestamp, a short answer.
func BenchmarkAppendString(b *testing.B) {
	strs := []string{"resp_a922ff98bb8a5c5089852123f0cdd2f9", "01a24eab94c17448a74663573cfd293a",
		"2026-12-07T04:03:17.123Z", "Echo: hello", "response.output_text.delta", "assistant"}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = AppendString(buf, s)
		}
	}
}
