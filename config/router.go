package config

// RouterBackend is spec.backend.router: several harnesses behind one
// agent, each turn routed with bounded waits and fallbacks (issue #13;
// being built).
type RouterBackend struct{}
