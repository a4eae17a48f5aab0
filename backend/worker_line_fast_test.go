package backend

import (
	"bytes"
	"reflect"
	"testing"
)

// hotLines are lines the fast path takes, and lines it must leave to
// decodeWorkerLine.
var hotLines = []string{
	`{"type":"text","id":"resp_1","delta":"w1 "}`,
	`{"type":"text","id":"resp_1","delta":""}`,
	` { "type" : "thinking" , "id":"resp_1", "delta":"hmm", "agent":"a", "future":"x" } `,
	`{"id":"resp_2","type":"done"}`,
	`{"type":"text","id":"resp_1","delta":"é ünïcode 🙂"}`,
	`{"type":"text","id":"resp_1","delta":"a","delta":"b"}`,
	// Left to decodeWorkerLine:
	`{"type":"text","id":"resp_1","delta":"tab\tescaped"}`,
	`{"type":"text","id":"resp_1","delta":"quote\""}`,
	`{"type":"text","id":"resp_1","delta":5}`,
	`{"type":"text","id":"resp_1","delta":null}`,
	`{"type":"text","id":"resp_1"}`,
	`{"type":"text","id":"","delta":"x"}`,
	`{"type":"text","delta":"x"}`,
	`{"type":"tool_call","id":"r","callId":"c","name":"n"}`,
	`{"type":"text","id":"resp_1","delta":"x"} trailing`,
	`{"type":"text","id":"resp_1","delta":"x",}`,
	`{"type":"text","id":"resp_1","delta":"x"`,
	"{\"type\":\"text\",\"id\":\"resp_1\",\"delta\":\"\xff\"}",
	`{}`,
	`[]`,
	`{"type":"done","id":"r","n":{"a":1}}`,
}

// Whatever the fast path takes decodes exactly as decodeWorkerLine does.
func TestDecodeHotLineAgreesWithDecodeWorkerLine(t *testing.T) {
	taken := 0
	for _, line := range hotLines {
		if checkHotLine(t, []byte(line)) {
			taken++
		}
	}
	if taken != 6 {
		t.Errorf("the fast path took %d of the lines, want the first 6", taken)
	}
}

func FuzzDecodeHotLine(f *testing.F) {
	for _, line := range hotLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkHotLine(t, line) })
}

// checkHotLine reports whether the fast path took line, failing t if it
// decoded it otherwise than decodeWorkerLine.
func checkHotLine(t *testing.T, line []byte) bool {
	t.Helper()
	fast, ok := decodeHotLine(bytes.TrimSpace(line), "resp_1")
	if !ok {
		return false
	}
	slow, err := decodeWorkerLine(line)
	if err != nil {
		t.Fatalf("the fast path took %q, which decodeWorkerLine refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("line %q: fast %+v, decodeWorkerLine %+v", line, fast, slow)
	}
	return true
}

func BenchmarkDecodeTextLine(b *testing.B) {
	line := []byte(`{"type":"text","id":"resp_01JBENCHMARK0000000000000","delta":"w12 "}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeHotLine(line, "resp_01JBENCHMARK0000000000000"); !ok {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeWorkerLine(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
