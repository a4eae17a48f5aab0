package mcpapi

import (
	"log/slog"
	"net/http"

	"github.com/harnest/harnest/runtime"
)

// Options configure the MCP door.
type Options struct {
	Service     *runtime.Service
	AgentName   string // metadata.name: the tool's name
	DisplayName string
	Description string
	Logger      *slog.Logger
}

// New returns the /mcp handler. Requests reach it through the auth
// middleware: auth.From(r.Context()) is the caller.
func New(o Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not implemented yet", http.StatusNotImplemented)
	})
}
