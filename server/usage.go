package server

import (
	"net/http"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/usageapi"
)

// mountUsage mounts GET /usage (the usage counters the runtime keeps) and
// lists it in /agent; owners are the relay's owners.
func (s *Server) mountUsage(mux *http.ServeMux, endpoints map[string]string) {
	usageapi.Register(mux, usageapi.Options{Store: s.Store, IsOwner: s.relay.IsOwner})
	for k, v := range usageapi.Endpoints() {
		endpoints[k] = v
	}
}

// userLimits are the runtime's per-user limits from the config.
func userLimits(l config.Limits) runtime.UserLimits {
	return runtime.UserLimits{TurnsPerDay: l.TurnsPerDay, ConcurrentResponses: l.ConcurrentResponses,
		TokensPerDay: l.TokensPerDay, CostPerDayMicros: l.CostPerDayMicros()}
}
