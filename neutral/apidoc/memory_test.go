package apidoc

import (
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"github.com/harnest/harnest/memoryapi"
)

// memoryOperations are the /memory routes (memoryapi), with the statuses
// each must document.
var memoryOperations = []struct {
	path, method, id string
	codes            []int
}{
	{"/memory/{namespace}/{key}", http.MethodPut, "putMemoryItem", []int{200, 400, 413, 502}},
	{"/memory/{namespace}/{key}", http.MethodGet, "getMemoryItem", []int{200, 404}},
	{"/memory/{namespace}/{key}", http.MethodDelete, "deleteMemoryItem", []int{204, 404}},
	{"/memory/{namespace}", http.MethodGet, "listMemoryItems", []int{200, 400}},
	{"/memory/search", http.MethodPost, "searchMemory", []int{200, 400, 413, 502}},
}

func TestMemoryOperations(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo"})
	for _, w := range memoryOperations {
		op := mustOperation(t, doc, w.path, w.method)
		if op.OperationID != w.id || !reflect.DeepEqual(op.Tags, []string{tagMemory}) || op.Summary == "" {
			t.Errorf("%s %s: id %q, tags %v, summary %q", w.method, w.path, op.OperationID, op.Tags, op.Summary)
		}
		for _, code := range w.codes {
			if op.Responses.Value(strconv.Itoa(code)) == nil {
				t.Errorf("%s %s does not document %d", w.method, w.path, code)
			}
		}
		var user bool
		for _, p := range op.Parameters {
			user = user || (p.Value.Name == "user" && p.Value.In == "query")
		}
		if !user {
			t.Errorf("%s %s does not document ?user=", w.method, w.path)
		}
	}
	for name, path := range memoryapi.Endpoints() {
		if doc.Paths.Value(path) == nil {
			t.Errorf("endpoint %s (%s) is not documented", name, path)
		}
	}
	// The search hit is an item with a score.
	hit := mustOperation(t, doc, "/memory/search", http.MethodPost).Responses.Value("200").Value.Content.Get("application/json").Schema.Value.Properties["items"].Value.Items.Value
	if hit.Properties["score"] == nil || hit.Properties["value"] == nil {
		t.Errorf("a search hit's schema has %v", hit.Properties)
	}
}
