package runtime

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestArtifactEventJSONGolden(t *testing.T) {
	e := Event{Type: EventArtifact, Sequence: 2, ResponseID: "resp_1", SessionID: "s1", Artifact: &ArtifactInfo{
		ID: "a1", Name: "report", Description: "the report", Append: true, LastChunk: true,
		Metadata: json.RawMessage(`{"k":1}`),
		Parts: []ArtifactPart{
			{Type: "text", Text: "Hi <b>"},
			{Type: "data", Data: json.RawMessage(`{"n": [1, 2]}`)},
			{Type: "file", Bytes: []byte("abc"), MediaType: "text/plain", Name: "a.txt"},
			{Type: "file", URL: "https://x.example/f.pdf", MediaType: "application/pdf"},
		},
	}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"response.artifact","sequence":2,"responseId":"resp_1","sessionId":"s1","artifact":{"artifactId":"a1","name":"report",` +
		`"description":"the report","parts":[{"type":"text","text":"Hi \u003cb\u003e"},{"type":"data","data":{"n":[1,2]}},` +
		`{"type":"file","bytes":"YWJj","mediaType":"text/plain","name":"a.txt"},` +
		`{"type":"file","url":"https://x.example/f.pdf","mediaType":"application/pdf"}],"append":true,"lastChunk":true,"metadata":{"k":1}}}`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	// What the encoder writes, encoding/json reads back as the same chunk.
	var back struct {
		Artifact ArtifactInfo `json:"artifact"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	back.Artifact.Parts[1].Data = json.RawMessage(`{"n": [1, 2]}`)
	if !reflect.DeepEqual(back.Artifact, *e.Artifact) {
		t.Fatalf("round trip: %+v", back.Artifact)
	}
}

func TestArtifactChunksFoldIntoOneOutputItem(t *testing.T) {
	var b outputBuilder
	b.add(Event{Type: EventTextDelta, Delta: "Done."})
	b.add(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "s", Name: "story", Parts: []ArtifactPart{{Type: "text", Text: "one "}}}})
	b.add(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "s", Append: true, Parts: []ArtifactPart{{Type: "text", Text: "two"}}}})
	b.add(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "s", Append: true, LastChunk: true,
		Parts: []ArtifactPart{{Type: "data", Data: json.RawMessage(`1`)}}}})
	b.add(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "t", Parts: []ArtifactPart{{Type: "text", Text: "old"}}}})
	b.add(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "t", Parts: []ArtifactPart{{Type: "text", Text: "new"}}}})
	env := Envelope{ID: "resp_1", SessionID: "s1", EnvelopeBody: EnvelopeBody{Status: StatusCompleted, OutputText: string(b.text),
		Output: b.output(), Metadata: json.RawMessage(`{}`)}}
	got, err := env.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"resp_1","sessionId":"s1","status":"completed","outputText":"Done.","output":[` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},` +
		`{"type":"artifact","name":"story","artifactId":"s","parts":[{"type":"text","text":"one two"},{"type":"data","data":1}]},` +
		`{"type":"artifact","artifactId":"t","parts":[{"type":"text","text":"new"}]}],"metadata":{}}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// encoding/json reads the envelope back with its artifacts.
	var back Envelope
	if err := json.Unmarshal(got, &back); err != nil || back.Output[1].Parts[0].Text != "one two" {
		t.Fatalf("decode: %v %+v", err, back.Output)
	}
}

// An answer of artifacts alone, with no text, is an answer: it completes.
func TestArtifactsAloneAreAnAnswer(t *testing.T) {
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		return emit(Event{Type: EventArtifact, Artifact: &ArtifactInfo{ID: "a1", Parts: []ArtifactPart{{Type: "data", Data: json.RawMessage(`{"n":1}`)}}, LastChunk: true}})
	})
	svc := newTestService(t, agent, nil)
	resp, err := svc.StartResponse(context.Background(), Principal{UserID: "u"}, ResponseRequest{Input: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if o := resp.Outcome(); o.Err != nil || !strings.Contains(string(o.Body), `"status":"completed"`) {
		t.Fatalf("outcome %+v %s", o.Err, o.Body)
	}
}
