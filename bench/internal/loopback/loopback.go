// Package loopback keeps the benchmark's programs on this machine: it
// refuses any URL whose host is not a loopback address, and its HTTP client
// refuses to dial anything else. Names are never resolved to decide: only
// "localhost" is accepted by name.
package loopback

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// CheckURL refuses a URL that is not http(s) (or ws(s), for WebSockets) on
// a loopback host: 127.0.0.0/8, ::1 or localhost.
func CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("bad url %q: %v", rawURL, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("url %q: scheme must be http or https (ws or wss for WebSockets)", rawURL)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	addr, err := netip.ParseAddr(host)
	if err == nil && addr.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("url %q: host %q is not loopback; benches only target loopback (127.0.0.0/8, ::1, localhost)", rawURL, host)
}

// DialControl is a net.Dialer Control hook: even if "localhost" resolves to
// something odd, a connection to an address that is not loopback is
// refused.
func DialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("refusing to dial %s: benches only target loopback", address)
	}
	return nil
}

// Dialer returns a dialer that only connects to loopback addresses.
func Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: DialControl}
}

// Client returns an HTTP/1.1 client that keeps up to conns idle
// connections, uses no proxy, asks for no compression, follows no redirect
// (a redirect is an answer like any other) and only dials loopback.
func Client(conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         Dialer().DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // measure the bytes the server sends
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
