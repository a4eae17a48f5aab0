package server

import (
	"net/http"

	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/store"
)

// mountEvals serves the agent's last eval run (package eval), which
// harnest eval --redis-url keeps in the store, and lists it in /agent.
func (s *Server) mountEvals(mux *http.ServeMux, endpoints map[string]string) {
	mux.Handle("GET "+eval.LastRunPath, eval.LastRunHandler(s.Store, s.Folder.Config.Metadata.Name))
	endpoints["evalsLast"] = eval.LastRunPath
}

// EvalRuns is the store's slice of eval runs, where harnest eval
// --redis-url keeps its run for the playground.
func (s *Server) EvalRuns() store.EvalRuns { return s.Store }
