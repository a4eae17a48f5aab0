package server

import (
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/harnest/harnest/trigger"
)

// mountTriggers mounts the inbound triggers (package trigger) at POST
// /triggers/{name}, and lists them in /agent when there are any.
func (s *Server) mountTriggers(mux *http.ServeMux, endpoints map[string]string) error {
	cfg := s.Folder.Config.Server
	var defs []trigger.Definition
	for _, name := range slices.Sorted(maps.Keys(cfg.Triggers)) {
		t := cfg.Triggers[name]
		d := trigger.Definition{
			Name: name, Scheme: t.Scheme, Secret: t.Secret, User: t.User,
			Tolerance: time.Duration(t.ToleranceSeconds) * time.Second, Remember: time.Duration(t.RememberSeconds) * time.Second,
			Input: t.Input, Session: t.Session, OnBusy: t.OnBusy,
		}
		if a := t.Answer; a != nil {
			d.AnswerWaitID, d.AnswerApproved, d.AnswerOutput = a.WaitID, a.Approved, a.Output
		}
		defs = append(defs, d)
	}
	ts, err := trigger.New(trigger.Options{Triggers: defs, Store: s.Store, Service: s.Service,
		MaxBodyBytes: int(cfg.Limits.MaxRequestBytes), Log: s.log})
	if err != nil {
		return err
	}
	ts.Register(mux)
	if len(defs) > 0 {
		for k, v := range trigger.Endpoints() {
			endpoints[k] = v
		}
	}
	return nil
}
