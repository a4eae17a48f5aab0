package config

// IsLoopbackHost reports whether host may be listened on without
// server.http.allowRemote (127.0.0.1, ::1 or localhost).
func IsLoopbackHost(host string) bool { return loopbackHosts[host] }
