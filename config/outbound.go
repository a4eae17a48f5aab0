package config

import "strings"

// Outbound is where the server's own outgoing deliveries (A2A push
// notifications, completion webhooks) may go: https to public hosts, and
// the private or loopback hosts listed here (plain http only to a listed
// loopback host).
type Outbound struct {
	// AllowHosts are private or loopback hosts (host or host:port) that
	// deliveries may reach, as auth.jwt.allowHosts is for the JWKS.
	AllowHosts []string `yaml:"allowHosts"`
}

// outbound checks server.outbound.
func (v *validator) outbound(o Outbound) {
	for i, h := range o.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			v.problem(indexPath("server.outbound.allowHosts", i), "must be a host or host:port, such as 127.0.0.1:9000 or hooks.internal")
		}
	}
}
