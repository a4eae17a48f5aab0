package a2a

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/netguard"
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
type Resolver = netguard.Resolver

// AliveOptions configure how alive_json is fetched at start-up, through
// the outbound guard (internal/netguard). The zero value is what
// production uses: the system resolver, a plain dialer, public addresses
// over https only, no redirects.
type AliveOptions struct {
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

// fetchAlive fetches and checks an .alive.json file through the outbound
// guard: https only, every address of its host public (unless listed in
// AllowHosts), no redirects, a time limit, at most 64 KB, a JSON object
// whose look, colors and name are valid.
func fetchAlive(ctx context.Context, raw string, o AliveOptions) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return errors.New("must be an https URL")
	}
	if u.User != nil {
		return errors.New("must not carry credentials")
	}
	policy := netguard.Policy{AllowHosts: o.AllowHosts, Resolver: o.Resolver, Dial: o.Dial, TLSConfig: o.TLSConfig}
	if err := policy.CheckURL(u); err != nil {
		return errors.New(refusal(err))
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	client := netguard.Client(policy, timeout)
	defer client.CloseIdleConnections()
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
	body, err := netguard.ReadLimited(resp, aliveMaxBytes)
	if errors.Is(err, netguard.ErrTooLarge) {
		return errors.New("is larger than 64 KB")
	}
	if err != nil {
		return errors.New("cannot be read: " + fetchProblem(err))
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
