package server

import (
	"net/http"

	"github.com/harnest/harnest/eval"
)

// mountEvals serves the agent's last eval run (package eval), which
// harnest eval --redis-url keeps in the store, and lists it in /agent.
func (s *Server) mountEvals(mux *http.ServeMux, endpoints map[string]string) {
	mux.Handle("GET "+eval.LastRunPath, eval.LastRunHandler(s.Store, s.Folder.Config.Metadata.Name))
	endpoints["evalsLast"] = eval.LastRunPath
}
