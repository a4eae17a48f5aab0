// Package tools is tools at home (spec.relay.toolsAtHome): a paired
// outside agent calls the agent's server tools that its owner granted it.
// It holds what does not speak HTTP: the tool set and its readiness, the
// run notes each inbox item carries (note.go), and a call's life (call.go):
// run once per call_id, wait for the owner's approval, record the outcome
// and tell the owner's feed. The relay's door (package relay) serves the
// routes (POST tools/call, the owner's grants, approvals and receipts)
// and answers with what this package returns.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/store"
)

// Limits of tools at home, as the outside agents' guide states them.
const (
	RunNoteTTL         = 10 * time.Minute
	MaxToolArgsBytes   = 16 << 10
	MaxCallsPerRun     = 20
	ToolCallsPerMinute = 60

	// CallbackPrefix starts every callback token.
	CallbackPrefix = "hrn_cb_"

	// CallKeep is how long a call (and so the owner's receipt) is kept.
	CallKeep = 24 * time.Hour
	// approvalWait bounds how long one tools/call request waits for the
	// owner's decision (or for the same call running elsewhere); the
	// agent repeats the call_id to wait again.
	approvalWait = 25 * time.Second
	// runLimit bounds one tool's run, whatever its own timeout.
	runLimit = 5 * time.Minute
)

// ToolSet is the tools an outside agent may call: the agent's server
// tools, as internal/toolrun builds them for the model backend.
type ToolSet interface {
	Find(name string) (toolrun.Tool, bool)
	Call(ctx context.Context, name string, args json.RawMessage) (toolrun.Result, error)
}

// Store is what tools at home read and write themselves: the run notes'
// shared key, a call's state, and the owner's feed (which shows each call
// and wakes the requests waiting for one, on any replica).
type Store interface {
	SharedSecret(ctx context.Context, name string) ([]byte, error)
	GetRelayToolCall(ctx context.Context, owner, participant, run, callID string) (store.RelayToolCall, bool, error)
	ClaimRelayToolCall(ctx context.Context, owner, participant, run, callID string) (bool, error)
	FinishRelayToolCall(ctx context.Context, owner string, c store.RelayToolCall) error
	DecideRelayToolCall(ctx context.Context, owner, approvalID string, approve bool, now time.Time) (store.RelayToolCall, error)
	GetParticipant(ctx context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error)
	AppendRelayFeed(ctx context.Context, owner string, e store.RelayFeedEntry) (id string, err error)
	ListenRelayFeed(ctx context.Context, owner string) (signal <-chan struct{}, stop func(), err error)
}

// Options configure a Home.
type Options struct {
	Set    ToolSet
	Store  Store
	Logger *slog.Logger
	// Now is the relay's clock.
	Now func() time.Time
}

// Home is tools at home turned on: the tool set, and the run notes'
// signing key, read from the store once.
type Home struct {
	set    ToolSet
	st     Store
	log    *slog.Logger
	now    func() time.Time
	closer func() error // closes a set Open built; nil otherwise

	keyMu sync.Mutex
	key   []byte
}

// New turns tools at home on with o.Set.
func New(o Options) *Home {
	h := &Home{set: o.Set, st: o.Store, log: o.Logger, now: o.Now}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	return h
}

// Open builds the agent's server tools (spec.tools and spec.mcpServers,
// as the model backend does) and turns tools at home on with them when
// spec.relay.toolsAtHome is set; otherwise it returns nil. Close stops
// the tools' MCP servers.
func Open(ctx context.Context, spec config.Spec, folderDir string, o Options) (*Home, error) {
	if !spec.Relay.ToolsAtHome {
		return nil, nil
	}
	set, err := toolrun.Open(ctx, toolrun.Options{Tools: spec.Tools, MCPServers: spec.MCPServers, FolderDir: folderDir, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("relay: tools at home: %w", err)
	}
	o.Set = set
	h := New(o)
	h.closer = set.Close
	return h, nil
}

// Close stops what Open started.
func (h *Home) Close() {
	if h.closer != nil {
		_ = h.closer()
	}
}

// Ready reports whether the tool set is ready (its MCP servers listed).
func (h *Home) Ready(ctx context.Context) error {
	if rr, ok := h.set.(interface{ Ready(context.Context) error }); ok {
		return rr.Ready(ctx)
	}
	return nil
}

// ServerTool finds a tool an outside agent may call: a server or MCP
// tool, never a client tool.
func (h *Home) ServerTool(name string) (toolrun.Tool, bool) {
	t, ok := h.set.Find(name)
	if !ok || (t.Kind != toolrun.KindExec && t.Kind != toolrun.KindMCP) {
		return toolrun.Tool{}, false
	}
	return t, true
}

// NoteKey is the run notes' HMAC key: a shared secret of the store, so
// every replica signs and verifies with the same one.
func (h *Home) NoteKey(ctx context.Context) ([]byte, error) {
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
