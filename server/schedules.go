package server

import (
	"context"
	"net/http"
	"time"

	"github.com/harnest/harnest/schedule"
)

// newScheduler builds the replica's schedules (package schedule): its
// scheduler, which the server starts with the service and stops before
// the store, and its routes.
func (s *Server) newScheduler(tune func(*schedule.Options)) *schedule.Scheduler {
	c := s.Folder.Config.Server.Schedules
	o := schedule.Options{
		Store: s.Store, Service: s.Service, MaxPerUser: c.MaxPerUser, MissedFires: c.MissedFires,
		MissedAfter:  time.Duration(c.MissedAfterSeconds * float64(time.Second)),
		IsOwner:      s.relay.IsOwner,
		MaxBodyBytes: int(s.Folder.Config.Server.Limits.MaxRequestBytes),
		Log:          s.log,
		OnFire: func(ctx context.Context, user, id string, f schedule.FireView) {
			if err := s.relay.ScheduleFired(ctx, user, id, f.Seq, f.ResponseID, f.SessionID, f.Status, f.Error, f.Outcome); err != nil {
				s.log.Warn("schedules: cannot post a fire to the owner's feed", "schedule", id, "err", err)
			}
		},
	}
	if tune != nil {
		tune(&o)
	}
	return schedule.New(o)
}

// mountSchedules mounts the schedules' routes and lists them in /agent.
func (s *Server) mountSchedules(mux *http.ServeMux, endpoints map[string]string) {
	s.schedules.Register(mux)
	for k, v := range schedule.Endpoints() {
		endpoints[k] = v
	}
}
