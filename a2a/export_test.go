package a2a

// The helpers of this package's tests, for the tests of package a2a_test
// (which start whole servers through servertest: package a2a itself cannot
// import the server, which imports it).
var (
	EchoCard = testCard
	Dig      = dig
	Str      = str
)

// PushConfigReads is how often the server read a task's push configs
// from the store for an update.
func (s *Server) PushConfigReads() int {
	s.push.mu.Lock()
	defer s.push.mu.Unlock()
	return s.push.misses
}
