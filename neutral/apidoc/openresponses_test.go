package apidoc

import (
	"net/http"
	"strings"
	"testing"
)

// With server.openResponses on, the document describes /v1/responses and
// its routes under the tag "Open Responses"; off, it has none of them.
func TestOpenResponsesOperations(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo", OpenResponses: true})
	for _, op := range []struct{ path, method, id string }{
		{"/v1/responses", http.MethodPost, "createOpenResponse"},
		{"/v1/responses/{responseId}", http.MethodGet, "getOpenResponse"},
		{"/v1/responses/{responseId}/cancel", http.MethodPost, "cancelOpenResponse"},
		{"/v1/responses/{responseId}/input_items", http.MethodGet, "listOpenResponseInputItems"},
	} {
		item := doc.Paths.Find(op.path)
		if item == nil || item.GetOperation(op.method) == nil {
			t.Fatalf("%s %s is not described", op.method, op.path)
		}
		o := item.GetOperation(op.method)
		if o.OperationID != op.id || len(o.Tags) != 1 || o.Tags[0] != tagOpenResponses {
			t.Errorf("%s %s: id %q tags %v", op.method, op.path, o.OperationID, o.Tags)
		}
	}
	created := doc.Paths.Find("/v1/responses").Post.Responses.Status(200).Value.Content
	if created.Get(mediaSSE) == nil || !strings.Contains(created.Get(mediaSSE).Schema.Value.Description, "sequence_number") {
		t.Errorf("POST /v1/responses does not describe its event stream")
	}
	if !strings.Contains(doc.Info.Description, "/v1/responses") {
		t.Errorf("description does not mention /v1/responses")
	}
	if off := mustDocument(t, Options{AgentName: "demo"}); off.Paths.Find("/v1/responses") != nil || strings.Contains(off.Info.Description, "/v1/responses") {
		t.Errorf("/v1/responses described while off")
	}
}
