package apidoc

import (
	"net/http"
	"strings"
	"testing"
)

// With server.useChat on, the document describes /api/chat, its resume
// and its stop under the tag "useChat"; off, none of them.
func TestUseChatOperations(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo", UseChat: true})
	for _, op := range []struct{ path, method, id string }{
		{"/api/chat", http.MethodPost, "useChatSend"},
		{"/api/chat/{chatId}/stream", http.MethodGet, "useChatResume"},
		{"/api/chat/{chatId}/stop", http.MethodPost, "useChatStop"},
	} {
		item := doc.Paths.Find(op.path)
		if item == nil || item.GetOperation(op.method) == nil {
			t.Fatalf("%s %s is not described", op.method, op.path)
		}
		o := item.GetOperation(op.method)
		if o.OperationID != op.id || len(o.Tags) != 1 || o.Tags[0] != tagUseChat {
			t.Errorf("%s %s: id %q tags %v", op.method, op.path, o.OperationID, o.Tags)
		}
	}
	sent := doc.Paths.Find("/api/chat").Post.Responses.Status(200).Value.Content
	if sent.Get(mediaSSE) == nil || !strings.Contains(sent.Get(mediaSSE).Schema.Value.Description, "[DONE]") {
		t.Errorf("POST /api/chat does not describe its stream")
	}
	if doc.Paths.Find("/api/chat/{chatId}/stream").Get.Responses.Status(204) == nil {
		t.Errorf("the resume does not describe its 204")
	}
	if !strings.Contains(doc.Info.Description, "/api/chat") {
		t.Errorf("description does not mention /api/chat")
	}
	if off := mustDocument(t, Options{AgentName: "demo"}); off.Paths.Find("/api/chat") != nil || strings.Contains(off.Info.Description, "/api/chat") {
		t.Errorf("/api/chat described while off")
	}
}
