package uichat_test

import (
	"reflect"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// examples/usechat serves useChat as its README says: the echo agent's
// thinking is a reasoning part, its tool call a dynamic tool part the
// agent ran, then the text.
func TestExampleFolder(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{Folder: "../examples/usechat"})
	s := open(t, ts, "POST", "/api/chat", userMessage("example", "hi there"))
	chunks := s.rest(t)
	want := []string{"start", "start-step", "reasoning-start", "reasoning-delta", "reasoning-end",
		"tool-input-start", "tool-input-available", "tool-output-available",
		"text-start", "text-delta", "text-delta", "text-delta", "text-end", "finish-step", "finish"}
	if got := types(chunks); !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks = %v, want %v", got, want)
	}
	tool := find(t, chunks, "tool-input-available")
	if tool["dynamic"] != true || tool["providerExecuted"] != true || tool["toolName"] != "echo" {
		t.Fatalf("tool %v", tool)
	}
	if text(chunks) != "Echo: hi there" {
		t.Fatalf("text %q", text(chunks))
	}
}
