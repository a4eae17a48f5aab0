package mcpapi

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// hostGuard is the protection against DNS rebinding that the SDK applies
// by default, with one exception: a request that reaches a loopback address
// must name a loopback host, or the server's public host (PublicBaseURL),
// which is what a reverse proxy on the same machine forwards.
type hostGuard struct {
	publicHost string // "" without a public base URL
}

func newHostGuard(publicBaseURL string) hostGuard {
	if u, err := url.Parse(publicBaseURL); err == nil && u.Host != "" {
		return hostGuard{publicHost: u.Host}
	}
	return hostGuard{}
}

// allows reports whether the request's Host may reach the server.
func (g hostGuard) allows(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) {
		return true // served on a public address: any name may point at it
	}
	return isLoopback(r.Host) || (g.publicHost != "" && strings.EqualFold(r.Host, g.publicHost))
}

// isLoopback reports whether a host or host:port is localhost or a
// loopback IP address.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
