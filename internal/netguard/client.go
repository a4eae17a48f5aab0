package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Policy says where outbound requests may go. The zero value is the
// strictest: https to public addresses only, no redirects, the system
// resolver and a plain dialer.
type Policy struct {
	// AllowHosts lists the hosts ("models.internal", "127.0.0.1",
	// "[::1]") or host:port pairs ("localhost:11434") that may resolve to
	// loopback or private addresses. Names match case-insensitively;
	// nothing matches by wildcard.
	AllowHosts []string
	// AllowHTTPLoopback lets plain http reach a host of AllowHosts whose
	// addresses are all loopback (a local model server, a test server).
	// Anything else needs https.
	AllowHTTPLoopback bool
	// MaxRedirects is how many redirects a request may follow, each
	// checked like the request itself; 0 follows none.
	MaxRedirects int
	// Resolver looks names up (default net.DefaultResolver).
	Resolver Resolver
	// Dial opens a connection to an address that passed the check,
	// always a literal IP and port (default a net.Dialer). Tests inject one
	// that records the attempt.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// TLSConfig is the TLS client configuration (tests add their CA);
	// ServerName is always the URL's host.
	TLSConfig *tls.Config
}

// DefaultTimeout bounds a Client's request when no timeout is given.
const DefaultTimeout = 30 * time.Second

// RefusedError is why the guard refused a URL, a redirect or a
// connection. Client errors wrap it (errors.As finds it).
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "netguard: " + e.Reason }

func refusef(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// ErrTooLarge is what ReadLimited returns (wrapped) for a body past its
// limit.
var ErrTooLarge = errors.New("netguard: the response body is too large")

// normalHost is a host as AllowHosts entries are compared: lower case,
// without brackets or a trailing dot, an IP in its canonical form.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String()
	}
	return h
}

// listed reports whether host (and port) is in AllowHosts.
func (p Policy) listed(host, port string) bool {
	host = normalHost(host)
	for _, e := range p.AllowHosts {
		if h, pt, err := net.SplitHostPort(e); err == nil {
			if normalHost(h) == host && pt == port {
				return true
			}
		} else if normalHost(e) == host {
			return true
		}
	}
	return false
}

// isLocalhost reports a name that always means this machine (RFC 6761).
func isLocalhost(host string) bool {
	h := normalHost(host)
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// defaultPort is the port of a URL without one.
func defaultPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// CheckURL checks what can be checked before any lookup: the scheme, the
// host, and the address when the host is a literal IP or names localhost.
// Client checks every request and redirect with it, and every connection
// again on the addresses the name resolves to; call it yourself to refuse
// a configured URL early.
func (p Policy) CheckURL(u *url.URL) error {
	if u == nil || u.Host == "" || u.Opaque != "" {
		return refusef("not an absolute URL with a host")
	}
	host, port := u.Hostname(), defaultPort(u)
	if means, numeric := numericHost(host); numeric {
		return refuseNumeric(host, means)
	}
	listed := p.listed(host, port)
	lit, litErr := netip.ParseAddr(host)
	switch u.Scheme {
	case "https":
	case "http":
		if !p.AllowHTTPLoopback || !listed {
			return refusef("plain http to %s is refused: use https (plain http is only for a loopback host listed in AllowHosts, with AllowHTTPLoopback)", u.Host)
		}
		if litErr == nil && !lit.Unmap().IsLoopback() {
			return refusef("plain http to %s is refused: the address %s, and plain http is only for loopback", u.Host, describe(lit))
		}
	default:
		return refusef("the scheme %q is refused: use https", u.Scheme)
	}
	if listed {
		return nil
	}
	if isLocalhost(host) {
		return refusef("%s names this machine; only a host listed in AllowHosts may be loopback", host)
	}
	if litErr == nil {
		if c, _ := Classify(lit); c != Public {
			return refusef("the address %s; only public addresses are reached (private, loopback or link-local ones only for a host listed in AllowHosts)", describe(lit))
		}
	}
	return nil
}

// guard holds a policy's defaults and does its checks for one Client.
type guard struct {
	p        Policy
	resolver Resolver
	dial     func(ctx context.Context, network, address string) (net.Conn, error)
}

func newGuard(p Policy) *guard {
	p.AllowHosts = append([]string(nil), p.AllowHosts...)
	g := &guard{p: p, resolver: p.Resolver, dial: p.Dial}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.dial == nil {
		g.dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return g
}

// resolve returns a host's addresses: a literal IP as is, a name through
// the resolver. A failure is a *net.DNSError.
func (g *guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, err
		}
		return nil, &net.DNSError{Err: err.Error(), Name: host, UnwrapErr: err}
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// checked resolves host and checks every address for a connection of the
// scheme; one refused address refuses the host. It returns the addresses
// to dial.
func (g *guard) checked(ctx context.Context, scheme, host, port string) ([]netip.Addr, error) {
	if means, numeric := numericHost(host); numeric {
		return nil, refuseNumeric(host, means)
	}
	listed := g.p.listed(host, port)
	if scheme == "http" && (!g.p.AllowHTTPLoopback || !listed) {
		return nil, refusef("plain http to %s is refused: use https (plain http is only for a loopback host listed in AllowHosts, with AllowHTTPLoopback)", net.JoinHostPort(host, port))
	}
	if !listed && isLocalhost(host) {
		return nil, refusef("%s names this machine; only a host listed in AllowHosts may be loopback", host)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	what := host + " resolves to"
	if _, err := netip.ParseAddr(host); err == nil {
		what = "the address"
	}
	for _, a := range addrs {
		c, _ := Classify(a)
		switch {
		case scheme == "http":
			if !a.Unmap().IsLoopback() {
				return nil, refusef("plain http to %s is refused: %s %s, and plain http is only for loopback", host, what, describe(a))
			}
		case c == Public:
		case listed && c != Unspecified && c != Multicast && c != Broadcast:
		case listed:
			return nil, refusef("%s %s, which is never reached", what, describe(a))
		default:
			return nil, refusef("%s %s; only public addresses are reached (private, loopback or link-local ones only for a host listed in AllowHosts)", what, describe(a))
		}
	}
	return addrs, nil
}

// connect dials the checked addresses in turn and returns the first
// connection.
func (g *guard) connect(ctx context.Context, network string, addrs []netip.Addr, port string) (net.Conn, error) {
	var last error
	for _, a := range addrs {
		a = a.Unmap()
		if (network == "tcp4" && !a.Is4()) || (network == "tcp6" && a.Is4()) {
			continue
		}
		c, err := g.dial(ctx, "tcp", net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("netguard: no %s address to dial", network)
	}
	return nil, last
}

// dialPlain is the Transport's dialer for http: loopback hosts listed in
// AllowHosts only.
func (g *guard) dialPlain(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, _, err := g.dialChecked(ctx, "http", network, addr)
	return conn, err
}

// dialChecked checks addr's host for scheme and connects to one of its
// checked addresses; host is the host of addr.
func (g *guard) dialChecked(ctx context.Context, scheme, network, addr string) (conn net.Conn, host string, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", err
	}
	addrs, err := g.checked(ctx, scheme, host, port)
	if err != nil {
		return nil, "", err
	}
	conn, err = g.connect(ctx, network, addrs, port)
	return conn, host, err
}

// dialTLS is the Transport's dialer for https: it checks, dials and
// completes the TLS handshake with the URL's host as the server name.
func (g *guard) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, host, err := g.dialChecked(ctx, "https", network, addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if g.p.TLSConfig != nil {
		cfg = g.p.TLSConfig.Clone()
	}
	cfg.ServerName = host
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// checkRedirect applies the hop limit, refuses a downgrade from https and
// checks the target like any request.
func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	if g.p.MaxRedirects <= 0 {
		return refusef("%s redirects to %s, and redirects are not followed", prev.URL.Redacted(), req.URL.Redacted())
	}
	if len(via) > g.p.MaxRedirects {
		return refusef("more than %d redirects, the limit", g.p.MaxRedirects)
	}
	if prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return refusef("%s redirects to %s: a redirect from https to %s is refused", prev.URL.Redacted(), req.URL.Redacted(), req.URL.Scheme)
	}
	return g.p.CheckURL(req.URL)
}

// transport checks every request's URL before the guarded Transport
// connects for it.
type transport struct {
	g    *guard
	base *http.Transport
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.g.p.CheckURL(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// pooled connections.
func (t *transport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// Client returns an http.Client that applies the policy to every request,
// redirect and connection, and gives up after timeout (DefaultTimeout when
// timeout is not positive). It keeps its connections: reuse one Client per
// policy, and call CloseIdleConnections when done with a one-off.
func Client(p Policy, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	g := newGuard(p)
	base := &http.Transport{
		Proxy:                 nil, // a proxy would connect on the guard's behalf
		DialContext:           g.dialPlain,
		DialTLSContext:        g.dialTLS,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: &transport{g: g, base: base}, CheckRedirect: g.checkRedirect, Timeout: timeout}
}

// ReadLimited reads a response body of at most n bytes and closes it. A
// longer body is cut at n bytes and reported with an error wrapping
// ErrTooLarge.
func ReadLimited(resp *http.Response, n int64) ([]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, n+1))
	if int64(len(b)) > n {
		return b[:n], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, n)
	}
	return b, err
}
