package a2a

import (
	"encoding/json"
	"testing"

	"github.com/harnest/harnest/runtime"
)

func TestMappingArtifactChunks(t *testing.T) {
	m := newTestMapper()
	chunk := func(seq int, append, last bool, parts ...runtime.ArtifactPart) frame {
		return frameOf(runtime.Event{Type: runtime.EventArtifact, Sequence: seq, Artifact: &runtime.ArtifactInfo{
			ID: "story", Name: "story", Parts: parts, Append: append, LastChunk: last}})
	}
	var got []StreamEvent
	got = append(got, m.apply(frame{Type: runtime.EventCreated, Seq: 0})...)
	got = append(got, m.apply(chunk(1, false, false, runtime.ArtifactPart{Type: "text", Text: "one "}))...)
	got = append(got, m.apply(chunk(2, true, false, runtime.ArtifactPart{Type: "text", Text: "two"}))...)
	got = append(got, m.apply(chunk(3, true, true, runtime.ArtifactPart{Type: "data", Data: json.RawMessage(`{"n":1}`)}))...)
	if d := describe(got); d != "status:WORKING artifact:one  artifact:two+append artifact:<data>+append+last" {
		t.Fatalf("updates: %s", d)
	}
	a := m.artifactByID("story")
	if a == nil || len(a.Parts) != 2 || *a.Parts[0].Text != "one two" || string(a.Parts[1].Data) != `{"n":1}` {
		t.Fatalf("snapshot: %+v", m.task.Artifacts)
	}
	// The updates never share parts with the snapshot.
	if *got[1].ArtifactUpdate.Artifact.Parts[0].Text != "one " {
		t.Fatalf("first chunk changed: %q", *got[1].ArtifactUpdate.Artifact.Parts[0].Text)
	}
}

func TestMappingFilePartsOfArtifacts(t *testing.T) {
	parts := partsOf([]runtime.ArtifactPart{
		{Type: "file", Bytes: []byte("abc"), MediaType: "text/plain", Name: "a.txt"},
		{Type: "file", URL: "https://x.example/f.pdf", MediaType: "application/pdf", Name: "f.pdf"},
	})
	if string(parts[0].Raw) != "abc" || parts[0].Filename != "a.txt" || parts[1].URL != "https://x.example/f.pdf" || parts[1].Raw != nil {
		t.Fatalf("parts: %+v", parts)
	}
	b03, _ := json.Marshal(parts03(parts))
	if string(b03) != `[{"kind":"file","file":{"name":"a.txt","mimeType":"text/plain","bytes":"YWJj"}},`+
		`{"kind":"file","file":{"name":"f.pdf","mimeType":"application/pdf","uri":"https://x.example/f.pdf"}}]` {
		t.Fatalf("0.3: %s", b03)
	}
}

func TestMappingRejectedAndAuthRequired(t *testing.T) {
	for _, tc := range []struct{ activity, state string }{
		{runtime.ActivityRejected, stateRejected},
		{runtime.ActivityAuthRequired, stateAuthRequired},
	} {
		m := newTestMapper()
		env := &runtime.Envelope{ID: "resp_1", SessionID: "s1", EnvelopeBody: runtime.EnvelopeBody{
			Status: runtime.StatusCompleted, OutputText: "No.",
			Output: []runtime.OutputItem{{Type: "agent_activity", Activity: tc.activity}}}}
		m.apply(frame{Type: runtime.EventCreated, Seq: 0})
		m.apply(frameOf(runtime.Event{Type: runtime.EventTextDelta, Sequence: 1, Delta: "No."}))
		// From this replica's stream and from the log, the same end.
		live := *m
		live.task = m.task.clone()
		b, _ := json.Marshal(runtime.Event{Type: runtime.EventCompleted, Sequence: 2, Envelope: env})
		logged := m.apply(loggedFrame(runtime.Frame{Type: runtime.EventCompleted, Sequence: 2, JSON: b}))
		streamed := live.apply(frameOf(runtime.Event{Type: runtime.EventCompleted, Sequence: 2, Envelope: env}))
		for _, out := range [][]StreamEvent{logged, streamed} {
			last := out[len(out)-1].StatusUpdate
			if last == nil || last.Status.State != tc.state || *last.Status.Message.Parts[0].Text != "No." {
				t.Fatalf("%s: %s", tc.activity, describe(out))
			}
		}
		if !wantsTask(*env) {
			t.Fatalf("%s: a direct message", tc.activity)
		}
		// A receipt read later does not end it again.
		if again := m.applyReceipt(*env); tc.state == stateAuthRequired && len(again) != 0 {
			t.Fatalf("receipt re-applied: %s", describe(again))
		}
	}
}

func TestInputOfKeepsPartsAndMessage(t *testing.T) {
	text := "look"
	msg := Message{MessageID: "m1", ContextID: "c1", Extensions: []string{"urn:x"}, ReferenceTaskIDs: []string{"t0"},
		Metadata: json.RawMessage(`{"a":1}`), Parts: []Part{{Text: &text}, {Data: json.RawMessage(`[1]`)},
			{URL: "https://x.example/a.png", MediaType: "image/png", Filename: "a.png"}}}
	s := &Server{}
	input, parts, err := s.inputOf(t.Context(), runtime.Principal{}, "", msg)
	if err != nil || input != "look" || len(parts) != 3 || parts[1].Type != "data" || parts[2].URL != "https://x.example/a.png" || parts[2].Name != "a.png" {
		t.Fatalf("input %q parts %+v err %v", input, parts, err)
	}
	tm := turnMessageOf(msg)
	if tm.MessageID != "m1" || tm.ContextID != "c1" || tm.Extensions[0] != "urn:x" || tm.ReferenceTaskIDs[0] != "t0" || string(tm.Metadata) != `{"a":1}` {
		t.Fatalf("turn message %+v", tm)
	}
	blank := ""
	if _, _, err := s.inputOf(t.Context(), runtime.Principal{}, "", Message{Parts: []Part{{Text: &blank}}}); err == nil {
		t.Fatal("blank text accepted")
	}
}
