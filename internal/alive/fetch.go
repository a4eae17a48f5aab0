package alive

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/netguard"
)

// MaxFileBytes bounds the .alive.json file.
const MaxFileBytes = 64 << 10

// DefaultTimeout bounds a whole alive_json fetch when Options.Timeout is
// not set.
const DefaultTimeout = 5 * time.Second

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver = netguard.Resolver

// Options configure how alive_json is fetched, through the outbound guard
// (internal/netguard). The zero value is what production uses: the system
// resolver, a plain dialer, public addresses over https only, no
// redirects.
type Options struct {
	// Resolver looks up alive_json's host (default net.DefaultResolver).
	Resolver Resolver
	// Dial opens the connection to a checked address (default a
	// net.Dialer). Only addresses that passed the check are dialled, so a
	// name that resolves again to something else (DNS rebinding) is never
	// reached.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// AllowHosts lists hosts (or host:port) that may resolve to private,
	// loopback or link-local addresses. Tests only: nothing in the
	// configuration sets it.
	AllowHosts []string
	// TLSConfig is the TLS client configuration (tests add their CA);
	// ServerName is always the URL's host.
	TLSConfig *tls.Config
	// Timeout bounds the whole fetch (default DefaultTimeout).
	Timeout time.Duration
}

// fetch fetches and checks an .alive.json file through the outbound guard:
// https only, every address of its host public (unless listed in
// AllowHosts), no redirects, a time limit, at most 64 KB, a JSON object
// whose look, colors and name are valid. It returns the file's look (its
// display_name, or else its name).
func fetch(ctx context.Context, raw string, o Options) (Look, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return Look{}, errors.New("must be an https URL")
	}
	if u.User != nil {
		return Look{}, errors.New("must not carry credentials")
	}
	policy := netguard.Policy{AllowHosts: o.AllowHosts, Resolver: o.Resolver, Dial: o.Dial, TLSConfig: o.TLSConfig}
	if err := policy.CheckURL(u); err != nil {
		return Look{}, errors.New(refusal(err))
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client := netguard.Client(policy, timeout)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Look{}, errors.New("must be an https URL")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return Look{}, errors.New("cannot be fetched: " + fetchProblem(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Look{}, fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	body, err := netguard.ReadLimited(resp, MaxFileBytes)
	if errors.Is(err, netguard.ErrTooLarge) {
		return Look{}, errors.New("is larger than 64 KB")
	}
	if err != nil {
		return Look{}, errors.New("cannot be read: " + fetchProblem(err))
	}
	return fileLook(body)
}

// fileLook checks an .alive.json file's look, colors, name and
// display_name, and returns its look.
func fileLook(body []byte) (Look, error) {
	var file map[string]any
	if err := json.Unmarshal(body, &file); err != nil || file == nil {
		return Look{}, errors.New("is not a JSON object")
	}
	byName, err := lookFields(file, "name", "its ")
	if err != nil {
		return Look{}, err
	}
	byDisplayName, err := lookFields(file, "display_name", "its ")
	if err != nil {
		return Look{}, err
	}
	return byDisplayName.orElse(byName), nil
}

// refusal is the guard's reason for a refusal, without its package name.
func refusal(err error) string {
	var re *netguard.RefusedError
	if errors.As(err, &re) {
		return re.Reason
	}
	return err.Error()
}

// fetchProblem names a fetch failure without internal detail.
func fetchProblem(err error) string {
	var ne net.Error
	var re *netguard.RefusedError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &re):
		return re.Reason
	case errors.As(err, &dnsErr):
		return "cannot resolve " + clip(dnsErr.Name)
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case strings.Contains(err.Error(), "certificate"), strings.Contains(err.Error(), "tls"):
		return "TLS failed"
	}
	return "connection failed"
}
