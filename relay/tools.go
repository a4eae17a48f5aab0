package relay

import "net/http"

// registerTools mounts the tools-at-home routes.
func (r *Relay) registerTools(mux *http.ServeMux) {}
