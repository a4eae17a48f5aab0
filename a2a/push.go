package a2a

import "github.com/harnest/harnest/runtime"

// taskUpdated is told of every update of a task this replica folds, after
// the feed has it.
func (s *Server) taskUpdated(p runtime.Principal, m *mapper, e StreamEvent) {}
