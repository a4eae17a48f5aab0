package openaiapi

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
)

// Options configure the OpenAI-compatible door.
type Options struct {
	Service      *runtime.Service
	Auth         *auth.Authenticator // the door answers 401 itself, in OpenAI's error shape
	AgentName    string              // metadata.name: the one model listed
	MaxBodyBytes int
	Logger       *slog.Logger
}

// IsPath reports the door's routes: the auth middleware lets them through
// so that the door refuses a missing token in OpenAI's error shape.
func IsPath(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/") }

// New returns the handler of /v1/.
func New(o Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not implemented yet", http.StatusNotImplemented)
	})
}
