package relay

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay/tools"
)

// Tools at home's routes: a paired outside agent calls the agent's server
// tools that its owner granted it (spec.relay.toolsAtHome; relay/tools
// holds the tool set, the run notes and a call's life). The pairing
// exchange then also returns a callback token (tools_note.go), each inbox
// item carries a signed run note, POST tools/call runs one tool
// (tools_call.go), and the owner grants tools, answers approvals and reads
// the receipts (tools_owner.go).

// Limits of tools at home, as the outside agents' guide states them.
const (
	RunNoteTTL         = tools.RunNoteTTL
	MaxToolArgsBytes   = tools.MaxToolArgsBytes
	MaxCallsPerRun     = tools.MaxCallsPerRun
	ToolCallsPerMinute = tools.ToolCallsPerMinute

	// CallbackPrefix starts every callback token.
	CallbackPrefix = tools.CallbackPrefix
)

// ToolSet is the tools an outside agent may call (tools.ToolSet).
type ToolSet = tools.ToolSet

// homeOptions are tools at home's options for a tool set.
func (r *Relay) homeOptions(set ToolSet, logger *slog.Logger) tools.Options {
	return tools.Options{Set: set, Store: r.homeSt, Logger: logger, Now: r.now}
}

// EnableToolsAtHome turns tools at home on with these tools. Call it
// before the relay serves requests.
func (r *Relay) EnableToolsAtHome(set ToolSet) {
	r.home = tools.New(r.homeOptions(set, r.log))
}

// OpenToolsAtHome builds the agent's server tools (spec.tools and
// spec.mcpServers, as the model backend does) and turns tools at home on
// with them when spec.relay.toolsAtHome is set; otherwise it does nothing.
// Close stops the tools' MCP servers.
func (r *Relay) OpenToolsAtHome(ctx context.Context, spec config.Spec, folderDir string, logger *slog.Logger) error {
	home, err := tools.Open(ctx, spec, folderDir, r.homeOptions(nil, logger))
	if err != nil {
		return err
	}
	r.home = home
	return nil
}

// closeToolsAtHome stops what OpenToolsAtHome started.
func (r *Relay) closeToolsAtHome() {
	if r.home != nil {
		r.home.Close()
	}
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
	return r.home.Ready(ctx)
}
