package a2a

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// AliveExtensionURI is the NetShow "alive" agent card extension: the look
// an agent shows when agents meet (a house look, colors, a display name,
// and an optional .alive.json file).
const AliveExtensionURI = "https://netshow.ai/a2a/ext/alive/v1"

// aliveMaxBytes bounds the .alive.json file.
const aliveMaxBytes = 64 << 10

// houseLooks are NetShow's house looks: characters, never a human face.
var houseLooks = map[string]bool{
	"pip": true, "robo": true, "byte": true, "owl": true, "cat": true, "fox": true, "drake": true, "momo": true,
	"scout": true, "dots-purple": true, "dots-yellow": true, "dots-blue": true, "dots-green": true,
	"pollen": true, "grok": true, "jolly": true,
}

var colorPattern = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// AliveOptions configure how alive_json is fetched at start-up. The zero
// value is what production uses: the system resolver, a plain dialer,
// public addresses only.
type AliveOptions struct {
	// Resolver looks up alive_json's host (default net.DefaultResolver).
	Resolver Resolver
	// Dial opens the connection to a checked address (default a
	// net.Dialer). Only addresses that passed the check are dialled, so a
	// name that resolves again to something else (DNS rebinding) is never
	// reached.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Allow lets addresses through that the check refuses (private,
	// loopback, link-local). Tests only: nothing in the configuration sets
	// it.
	Allow func(netip.Addr) bool
	// TLSConfig is the TLS client configuration (tests add their CA);
	// ServerName is always the URL's host.
	TLSConfig *tls.Config
	// Timeout bounds the whole fetch (default 5 s).
	Timeout time.Duration
}

// checkAlive validates the alive extension's params and fetches alive_json
// once. A non-nil error says why the extension must be dropped.
func checkAlive(ctx context.Context, ext map[string]any, o AliveOptions) error {
	if r, ok := ext["required"]; ok && r != false && r != nil {
		return errors.New("required must be false: the alive extension only describes the agent's look")
	}
	params, ok := ext["params"].(map[string]any)
	if !ok {
		return errors.New("params must be a mapping with look or alive_json")
	}
	for k := range params {
		switch k {
		case "look", "colors", "display_name", "alive_json":
		default:
			return fmt.Errorf("params.%s is not an alive parameter (look, colors, display_name, alive_json)", clip(k))
		}
	}
	_, hasLook := params["look"]
	_, hasFile := params["alive_json"]
	if !hasLook && !hasFile {
		return errors.New("params needs look or alive_json")
	}
	if err := checkLookFields(params, "display_name", "params."); err != nil {
		return err
	}
	if hasFile {
		raw, ok := params["alive_json"].(string)
		if !ok {
			return errors.New("params.alive_json must be an https URL")
		}
		if err := fetchAlive(ctx, raw, o); err != nil {
			return fmt.Errorf("params.alive_json: %w", err)
		}
	}
	return nil
}

// checkLookFields checks look, colors and the name field of a params map
// or an .alive.json file.
func checkLookFields(m map[string]any, nameKey, where string) error {
	if v, ok := m["look"]; ok {
		s, isString := v.(string)
		if !isString || !houseLooks[s] {
			return fmt.Errorf("%slook must be one of the house looks (pip, robo, byte, owl, cat, fox, drake, momo, scout, dots-purple, dots-yellow, dots-blue, dots-green, pollen, grok, jolly)", where)
		}
	}
	if v, ok := m["colors"]; ok {
		colors, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("%scolors must be a mapping with line and background", where)
		}
		for k, c := range colors {
			if k != "line" && k != "background" {
				return fmt.Errorf("%scolors.%s is not a color (line, background)", where, clip(k))
			}
			s, isString := c.(string)
			if !isString || !colorPattern.MatchString(s) {
				return fmt.Errorf("%scolors.%s must be #rgb or #rrggbb", where, k)
			}
		}
	}
	if v, ok := m[nameKey]; ok {
		s, isString := v.(string)
		if !isString {
			return fmt.Errorf("%s%s must be text", where, nameKey)
		}
		if err := checkDisplayName(s); err != nil {
			return fmt.Errorf("%s%s %w", where, nameKey, err)
		}
	}
	return nil
}

// checkDisplayName accepts plain text of 1 to 60 characters: no control or
// formatting characters (bidi overrides included) and no markup.
func checkDisplayName(s string) error {
	if !utf8.ValidString(s) || strings.TrimSpace(s) == "" {
		return errors.New("must be non-blank text")
	}
	if utf8.RuneCountInString(s) > 60 {
		return errors.New("must be at most 60 characters")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '<' || r == '>' {
			return errors.New("must be plain text (no control characters or markup)")
		}
	}
	return nil
}

// publicAddr reports an address on the public internet: not private,
// loopback, link-local, multicast, unspecified or otherwise reserved.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reservedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var reservedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "fec0::/10", "2002::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// fetchAlive fetches and checks an .alive.json file: https only, every
// address of its host public (unless Allow says otherwise), no redirects, a
// time limit, at most 64 KB, a JSON object whose look, colors and name are
// valid.
func fetchAlive(ctx context.Context, raw string, o AliveOptions) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return errors.New("must be an https URL")
	}
	if u.User != nil {
		return errors.New("must not carry credentials")
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "443"
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var addrs []netip.Addr
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
			return errors.New("must not point at localhost")
		}
		r := o.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return fmt.Errorf("cannot resolve %s", clip(host))
		}
	}
	for _, a := range addrs {
		if !publicAddr(a) && (o.Allow == nil || !o.Allow(a)) {
			return fmt.Errorf("%s resolves to %s, a private, loopback or link-local address", clip(host), a)
		}
	}
	dial := o.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLSConfig != nil {
		tlsConf = o.TLSConfig.Clone()
	}
	tlsConf.ServerName = host
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var last error
			for _, a := range addrs {
				c, err := dial(ctx, "tcp", net.JoinHostPort(a.Unmap().String(), port))
				if err == nil {
					return c, nil
				}
				last = err
			}
			return nil, last
		},
		TLSClientConfig:   tlsConf,
		DisableKeepAlives: true,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("redirects are not followed")
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return errors.New("must be an https URL")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return errors.New("cannot be fetched: " + fetchProblem(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, aliveMaxBytes+1))
	if err != nil {
		return errors.New("cannot be read: " + fetchProblem(err))
	}
	if len(body) > aliveMaxBytes {
		return errors.New("is larger than 64 KB")
	}
	var file map[string]any
	if err := json.Unmarshal(body, &file); err != nil {
		return errors.New("is not a JSON object")
	}
	if err := checkLookFields(file, "name", "its "); err != nil {
		return err
	}
	if err := checkLookFields(file, "display_name", "its "); err != nil {
		return err
	}
	return nil
}

// fetchProblem names a fetch failure without internal detail.
func fetchProblem(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case strings.Contains(err.Error(), "redirects are not followed"):
		return "it redirects, and redirects are not followed"
	case strings.Contains(err.Error(), "certificate"), strings.Contains(err.Error(), "tls"):
		return "TLS failed"
	}
	return "connection failed"
}
