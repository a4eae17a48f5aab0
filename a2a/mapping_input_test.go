package a2a_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// A file with bytes becomes an asset of the session before anything runs:
// content that is not what it claims is ContentTypeNotSupported, a file
// past the asset limit is invalid params, and in both cases no task exists.
func TestFileBytesAreKeptAsAssetsOrRefused(t *testing.T) {
	h := newHarness(t, setup{})
	send := func(raw []byte, mediaType string) map[string]any {
		part := map[string]any{"raw": base64.StdEncoding.EncodeToString(raw), "mediaType": mediaType, "filename": "f"}
		msg := map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "keep"}, part}}
		return h.rpc("1.0", "SendMessage", map[string]any{"message": msg}).JSON(t)
	}
	// Plain bytes under a type assets do not take are kept as opaque bytes
	// (the echo agent describes the asset it got).
	r := send([]byte("plain words"), "text/plain")
	if str(r, "result", "task", "status", "state") != stateCompleted ||
		!strings.Contains(str(r, "result", "task", "artifacts", 0, "parts", 0, "text"), "application/octet-stream, 11 bytes") {
		t.Fatalf("plain file: %v", r)
	}
	malformedPNG := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x00")
	if r := send(malformedPNG, "image/png"); dig(r, "error", "code") != float64(-32005) {
		t.Fatalf("malformed png: %v", r)
	}
	old := runtime.MaxAssetBytes
	runtime.MaxAssetBytes = 8
	t.Cleanup(func() { runtime.MaxAssetBytes = old })
	if r := send([]byte("more than eight bytes"), "application/octet-stream"); dig(r, "error", "code") != float64(-32602) {
		t.Fatalf("too large: %v", r)
	}
	list := h.rpc("1.0", "ListTasks", map[string]any{}).JSON(t)
	if tasks, _ := dig(list, "result", "tasks").([]any); len(tasks) != 1 {
		t.Fatalf("refused sends made tasks: %v", list)
	}
}
