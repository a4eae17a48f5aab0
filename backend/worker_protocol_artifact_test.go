package backend

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

func TestDecodeArtifactLine(t *testing.T) {
	line := `{"type":"artifact","id":"r","artifactId":"a1","name":"n","description":"d","append":true,"lastChunk":true,` +
		`"metadata":{"k":1},"agent":"w","parts":[{"type":"text","text":"hi"},{"type":"data","data":[1,2]},` +
		`{"type":"file","bytes":"YWJj","mediaType":"text/plain","name":"a.txt"},{"type":"file","url":"https://x.example/f"}]}`
	m, err := decodeWorkerLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.event()
	want := runtime.Event{Type: runtime.EventArtifact, Agent: "w", Artifact: &runtime.ArtifactInfo{
		ID: "a1", Name: "n", Description: "d", Append: true, LastChunk: true, Metadata: json.RawMessage(`{"k":1}`),
		Parts: []runtime.ArtifactPart{{Type: "text", Text: "hi"}, {Type: "data", Data: json.RawMessage(`[1,2]`)},
			{Type: "file", Bytes: []byte("abc"), MediaType: "text/plain", Name: "a.txt"}, {Type: "file", URL: "https://x.example/f"}}}}
	if !ok || !reflect.DeepEqual(e, want) {
		t.Fatalf("got %+v\nwant %+v", e.Artifact, want.Artifact)
	}
}

func TestDecodeArtifactLineRefuses(t *testing.T) {
	for line, why := range map[string]string{
		`{"type":"artifact","id":"r","parts":[]}`:                                                          `"artifactId" is missing`,
		`{"type":"artifact","id":"r","artifactId":"a"}`:                                                    `"parts" is missing`,
		`{"type":"artifact","id":"r","artifactId":"a","parts":{}}`:                                         "array of objects",
		`{"type":"artifact","id":"r","artifactId":"a","parts":[{"type":"video"}]}`:                         "unknown part type",
		`{"type":"artifact","id":"r","artifactId":"a","parts":[{"type":"file"}]}`:                          "exactly one of",
		`{"type":"artifact","id":"r","artifactId":"a","parts":[{"type":"file","bytes":"@@"}]}`:             "base64",
		`{"type":"artifact","id":"r","artifactId":"a","parts":[{"type":"data"}]}`:                          `"data" is missing`,
		`{"type":"artifact","id":"r","artifactId":"a","append":"yes","parts":[]}`:                          "true or false",
		`{"type":"artifact","id":"r","artifactId":"a","parts":[{"type":"file","url":"u","bytes":"YQ=="}]}`: "exactly one of",
	} {
		_, err := decodeWorkerLine([]byte(line))
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err %v, want %q", line, err, why)
		}
	}
}

func TestTurnLineCarriesTheMessageAndSmallFiles(t *testing.T) {
	turn := &runtime.Turn{ResponseID: "r", Input: "x",
		Message: &runtime.TurnMessage{MessageID: "m1", Extensions: []string{"urn:e"}},
		Content: []runtime.ContentInput{{Type: "text", Text: "x"}, {Type: "data", Value: json.RawMessage(`{"a":1}`)},
			{Type: "file", AssetID: "asset_1", MediaType: "application/octet-stream", SizeBytes: 3, Name: "a.bin",
				Data: func(context.Context) ([]byte, error) { return []byte("abc"), nil }},
			{Type: "file", URL: "https://x.example/f.pdf", MediaType: "application/pdf"}}}
	w := &Workers{}
	line, err := w.turnLine(context.Background(), "r", turn)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Message map[string]any   `json:"message"`
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if got.Message["messageId"] != "m1" || got.Content[1]["data"].(map[string]any)["a"] != 1.0 ||
		got.Content[2]["bytes"] != "YWJj" || got.Content[2]["name"] != "a.bin" || got.Content[3]["url"] != "https://x.example/f.pdf" {
		t.Fatalf("turn line %s", line)
	}
	// A turn without a message leaves the field out (old workers see what they saw).
	line, _ = w.turnLine(context.Background(), "r", &runtime.Turn{Input: "x"})
	if strings.Contains(string(line), `"message"`) {
		t.Fatalf("turn line %s", line)
	}
}
