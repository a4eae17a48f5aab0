package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/store"
)

// Tools at home: a paired outside agent calls the agent's server tools
// that its owner granted it (spec.relay.toolsAtHome). The pairing exchange
// then also returns a callback token (tools_callback.go), each inbox item
// carries a signed run note (tools_note.go), POST tools/call runs one tool
// (tools_call.go), and the owner grants tools, answers approvals and reads
// the receipts (tools_owner.go).

// Limits of tools at home, as the outside agents' guide states them.
const (
	RunNoteTTL         = 10 * time.Minute
	MaxToolArgsBytes   = 16 << 10
	MaxCallsPerRun     = 20
	ToolCallsPerMinute = 60

	// CallbackPrefix starts every callback token.
	CallbackPrefix = "hrn_cb_"

	// toolCallKeep is how long a call (and so the owner's receipt) is kept.
	toolCallKeep = 24 * time.Hour
	// approvalWait bounds how long one tools/call request waits for the
	// owner's decision (or for the same call running elsewhere); the
	// agent repeats the call_id to wait again.
	approvalWait = 25 * time.Second
	// toolRunLimit bounds one tool's run, whatever its own timeout.
	toolRunLimit = 5 * time.Minute
)

// ToolSet is the tools an outside agent may call: the agent's server
// tools, as internal/toolrun builds them for the model backend.
type ToolSet interface {
	Find(name string) (toolrun.Tool, bool)
	Call(ctx context.Context, name string, args json.RawMessage) (toolrun.Result, error)
}

// toolsAtHome is a relay's tools-at-home part: the tool set, and the run
// notes' signing key, read from the store once.
type toolsAtHome struct {
	set    ToolSet
	st     toolsStore
	closer func() error // closes a set the relay opened; nil otherwise

	keyMu sync.Mutex
	key   []byte
}

// toolsStore is the part of the store tools at home use beside the
// relay's: its own state and the run notes' shared key.
type toolsStore interface {
	store.RelayTools
	store.Secrets
}

// EnableToolsAtHome turns tools at home on with these tools. Call it
// before the relay serves requests.
func (r *Relay) EnableToolsAtHome(set ToolSet) {
	r.home = &toolsAtHome{set: set, st: r.homeSt}
}

// OpenToolsAtHome builds the agent's server tools (spec.tools and
// spec.mcpServers, as the model backend does) and turns tools at home on
// with them when spec.relay.toolsAtHome is set; otherwise it does nothing.
// Close stops the tools' MCP servers.
func (r *Relay) OpenToolsAtHome(ctx context.Context, spec config.Spec, folderDir string, logger *slog.Logger) error {
	if !spec.Relay.ToolsAtHome {
		return nil
	}
	set, err := toolrun.Open(ctx, toolrun.Options{Tools: spec.Tools, MCPServers: spec.MCPServers, FolderDir: folderDir, Logger: logger})
	if err != nil {
		return fmt.Errorf("relay: tools at home: %w", err)
	}
	r.EnableToolsAtHome(set)
	r.home.closer = set.Close
	return nil
}

// closeToolsAtHome stops what OpenToolsAtHome started.
func (r *Relay) closeToolsAtHome() {
	if r.home != nil && r.home.closer != nil {
		_ = r.home.closer()
	}
}

// serverTool finds a tool an outside agent may call: a server or MCP
// tool, never a client tool.
func (h *toolsAtHome) serverTool(name string) (toolrun.Tool, bool) {
	t, ok := h.set.Find(name)
	if !ok || (t.Kind != toolrun.KindExec && t.Kind != toolrun.KindMCP) {
		return toolrun.Tool{}, false
	}
	return t, true
}

// noteKey is the run notes' HMAC key: a shared secret of the store, so
// every replica signs and verifies with the same one.
func (h *toolsAtHome) noteKey(ctx context.Context) ([]byte, error) {
	h.keyMu.Lock()
	defer h.keyMu.Unlock()
	if h.key == nil {
		key, err := h.st.SharedSecret(ctx, "relay-run-note")
		if err != nil {
			return nil, err
		}
		h.key = key
	}
	return h.key, nil
}

// registerTools mounts the tools-at-home routes.
func (r *Relay) registerTools(mux *http.ServeMux) {
	mux.HandleFunc("POST "+APIPrefix+"tools/call", r.handleToolCall)
	mux.HandleFunc("GET "+OwnerPrefix+"participants/{id}/grants", r.owner(r.toolsOn(r.handleGetGrants)))
	mux.HandleFunc("POST "+OwnerPrefix+"participants/{id}/grants", r.owner(r.toolsOn(r.handleSetGrants)))
	mux.HandleFunc("DELETE "+OwnerPrefix+"participants/{id}/grants", r.owner(r.toolsOn(r.handleRevokeGrants)))
	mux.HandleFunc("GET "+OwnerPrefix+"participants/{id}/tool-calls", r.owner(r.toolsOn(r.handleToolReceipts)))
	mux.HandleFunc("POST "+OwnerPrefix+"tool-approvals/{id}", r.owner(r.toolsOn(r.handleToolApproval)))
}

// toolsOff answers a tools-at-home route while the feature is off.
func toolsOff(w http.ResponseWriter) {
	fail(w, http.StatusNotFound, "tools_at_home_off",
		"Tools at home are off on this server; the agent's owner turns them on with spec.relay.toolsAtHome: true.")
}

// toolsReady reports whether tools at home can serve (the relay backend's
// Ready): when they are on, the tool set must be ready (its MCP servers
// listed), so that /readyz says so while one does not answer.
func (r *Relay) toolsReady(ctx context.Context) error {
	if r.home == nil {
		return nil
	}
	if rr, ok := r.home.set.(interface{ Ready(context.Context) error }); ok {
		return rr.Ready(ctx)
	}
	return nil
}
