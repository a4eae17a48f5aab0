package memstore

import (
	"bytes"
	"fmt"
	"testing"
)

// TestTranscriptChunks appends steps of several sizes, some larger than a
// chunk, and checks every message, and that slices read early are not
// changed by later appends.
func TestTranscriptChunks(t *testing.T) {
	var tr transcript
	var want [][]byte
	var early []byte
	for step := range 300 {
		var msgs [][]byte
		for j := range step%3 + 1 {
			size := 40 + (step*37+j*11)%400
			if step%100 == 99 {
				size = maxTranscriptChunk + 10 // larger than a chunk
			}
			msgs = append(msgs, bytes.Repeat(fmt.Appendf(nil, "%d.", len(want)+j), size/4+1))
		}
		tr.append(msgs)
		want = append(want, msgs...)
		if step == 0 {
			early = tr.message(0)
		}
	}
	if tr.len() != len(want) {
		t.Fatalf("the transcript holds %d messages, want %d", tr.len(), len(want))
	}
	for i, m := range want {
		if got := tr.message(i); !bytes.Equal(got, m) || cap(got) != len(got) {
			t.Fatalf("message %d is %.20q (len %d, cap %d), want %.20q (len %d)", i, got, len(got), cap(got), m, len(m))
		}
	}
	if !bytes.Equal(early, want[0]) {
		t.Fatalf("a message read before later appends changed: %.20q", early)
	}
	if len(tr.more) == 0 || len(tr.more) > 60 {
		t.Fatalf("%d chunks after 300 steps: chunks should grow to %d bytes", len(tr.more)+1, maxTranscriptChunk)
	}
}
