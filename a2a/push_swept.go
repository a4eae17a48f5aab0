package a2a

import (
	"context"
	"time"

	"github.com/harnest/harnest/runtime"
)

// sweptTask tells a task's push configs that it failed when the replica
// that ran it died: no replica folds an update for such a task, so the
// sweeper of the replica that failed its response reports it (the task as
// the store now reads it, failed, in one final status update).
func (s *Server) sweptTask(user, _, taskID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := s.push.configs(ctx, user, taskID, s.now())
	if err != nil {
		s.log.Warn("a2a: cannot read push configs; the failed task is not notified", "taskId", taskID, "err", err)
		return
	}
	if len(cs) == 0 {
		return
	}
	p := runtime.Principal{UserID: user}
	m, err := s.load(ctx, p, taskID)
	if err != nil {
		s.log.Warn("a2a: cannot read a failed task; it is not notified", "taskId", taskID, "err", err)
		return
	}
	e := StreamEvent{StatusUpdate: &StatusUpdate{TaskID: m.task.ID, ContextID: m.task.ContextID, Status: m.task.Status}}
	for _, c := range cs {
		s.notify(ctx, p, m.task, e, c)
	}
}
