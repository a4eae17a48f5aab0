package a2a

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The served card is agent-card.yaml (the 1.0 shape) with what both
// generations of clients read:
//
//   - supportedInterfaces as written, their URLs rebased on the public base
//     URL when one is configured (deployments behind a proxy);
//   - for 0.3 clients, when the card declares a 0.3 interface: url and
//     preferredTransport (the first 0.3 interface), additionalInterfaces
//     (every 0.3 interface) and protocolVersion "0.3.0";
//   - capabilities.extensions with the alive extension checked, and
//     dropped with a start-up warning when any part of it is invalid.
//
// It is served with an ETag, Last-Modified and Cache-Control; a matching
// If-None-Match (or, without one, an If-Modified-Since not before
// Last-Modified) gets 304. The extended card (extcard.go) is built the same
// way from agent-card.extended.yaml; when there is one, the public card
// declares it (capabilities.extendedAgentCard, and for 0.3
// supportsAuthenticatedExtendedCard).

// cardInfo is what the server learns from the card besides its mounts.
type cardInfo struct {
	card       map[string]any
	streaming  bool
	push       bool            // capabilities.pushNotifications is served (push.go)
	declared   map[string]bool // extension URIs the card declares
	required   []string        // ... of which clients must request these
	inputModes *mediaTypes     // what messages may carry (modes.go); nil: anything
	warnings   []string
	json, etag []byte
	modified   time.Time // Last-Modified: when the card was built
}

// buildCard makes the served card. Capabilities harnest does not provide
// are start-up errors; an invalid alive extension is only a warning.
func buildCard(ctx context.Context, o Options) (*cardInfo, error) {
	var card map[string]any
	b, err := json.Marshal(o.Card)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card cannot be encoded as JSON: %w", err)
	}
	if err := json.Unmarshal(b, &card); err != nil || card == nil {
		card = map[string]any{}
	}
	info := &cardInfo{card: card, declared: map[string]bool{}}

	caps, _ := card["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		card["capabilities"] = caps
	}
	if caps["pushNotifications"] == true && o.Outbox == nil {
		return nil, fmt.Errorf("agent-card.yaml capabilities.pushNotifications: this server has no outbox to send A2A push notifications; remove it or set it to false")
	}
	// Push notifications are offered whenever there is an outbox, unless
	// the card turns them off.
	info.push = o.Outbox != nil && caps["pushNotifications"] != false
	if info.push {
		caps["pushNotifications"] = true
	}
	if caps["extendedAgentCard"] == true && o.ExtendedCard == nil {
		return nil, fmt.Errorf("agent-card.yaml capabilities.extendedAgentCard: the agent folder has no agent-card.extended.yaml; add one or remove the capability")
	}
	// The extended card is declared exactly when there is one, in both
	// generations' spellings.
	hasExtended := o.ExtendedCard != nil
	delete(caps, "extendedAgentCard")
	delete(card, "supportsAuthenticatedExtendedCard")
	if hasExtended {
		caps["extendedAgentCard"] = true
	}
	info.streaming = caps["streaming"] == true
	if o.Service != nil {
		addContract(card, o.Service.Contract()) // card_contract.go
	}
	info.inputModes = inputModesOf(card)

	info.keepExtensions(ctx, caps, o.Alive)
	if err := serveInterfaces(card, o.PublicBaseURL, hasExtended); err != nil {
		return nil, err
	}

	if info.json, err = json.Marshal(card); err != nil {
		return nil, fmt.Errorf("a2a: agent card cannot be encoded as JSON: %w", err)
	}
	info.etag = etagOf(info.json)
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	info.modified = now().UTC().Truncate(time.Second)
	return info, nil
}

// keepExtensions records the card's declared extensions (and the
// required ones) and leaves out an alive extension that does not check,
// with a warning.
func (info *cardInfo) keepExtensions(ctx context.Context, caps map[string]any, alive AliveOptions) {
	if exts, ok := caps["extensions"].([]any); ok {
		kept := make([]any, 0, len(exts))
		for i, item := range exts {
			ext, _ := item.(map[string]any)
			uri, _ := ext["uri"].(string)
			if uri == AliveExtensionURI {
				if err := checkAlive(ctx, ext, alive); err != nil {
					info.warnings = append(info.warnings, fmt.Sprintf(
						"agent-card.yaml capabilities.extensions[%d]: the alive extension is left out of the served card: %v", i, err))
					continue
				}
			}
			if uri != "" {
				info.declared[uri] = true
				if ext["required"] == true {
					info.required = append(info.required, uri)
				}
			}
			kept = append(kept, item)
		}
		caps["extensions"] = kept
	}
}

// serveInterfaces rewrites the card's interface URLs to those served
// (behind publicBaseURL when set; gRPC as host:port) and adds the fields
// A2A 0.3 clients read for the 0.3 interfaces.
func serveInterfaces(card map[string]any, publicBaseURL string, hasExtended bool) error {
	var base *url.URL
	if publicBaseURL != "" {
		u, err := url.Parse(publicBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("a2a: public base URL %q must be an absolute http or https URL without query", clip(publicBaseURL))
		}
		base = u
	}
	ifaces, _ := card["supportedInterfaces"].([]any)
	var legacy []any
	for _, item := range ifaces {
		iface, ok := item.(map[string]any)
		if !ok {
			continue
		}
		raw, _ := iface["url"].(string)
		if b, _ := iface["protocolBinding"].(string); normalizeBinding(b) == bindingGRPC {
			iface["url"] = servedGRPCURL(raw, base) // host:port, what gRPC clients dial (grpc.go)
			continue
		}
		if base != nil {
			if u, err := url.Parse(raw); err == nil {
				u.Scheme, u.Host = base.Scheme, base.Host
				u.Path = strings.TrimRight(base.Path, "/") + u.Path
				u.RawPath = ""
				raw = u.String()
				iface["url"] = raw
			}
		}
		if iface["protocolVersion"] == v03 {
			binding, _ := iface["protocolBinding"].(string)
			legacy = append(legacy, map[string]any{"url": raw, "transport": normalizeBinding(binding)})
		}
	}
	if len(legacy) > 0 {
		first := legacy[0].(map[string]any)
		card["protocolVersion"] = "0.3.0"
		card["url"] = first["url"]
		card["preferredTransport"] = first["transport"]
		card["additionalInterfaces"] = legacy
		if hasExtended {
			card["supportsAuthenticatedExtendedCard"] = true
		}
	}
	return nil
}

// etagOf is the strong entity tag of a body: a hash of its bytes, the same
// on every replica.
func etagOf(body []byte) []byte {
	sum := sha256.Sum256(body)
	return []byte(`"` + hex.EncodeToString(sum[:16]) + `"`)
}

// Card returns the served agent card: serve it at
// /.well-known/agent-card.json (and in /agent) instead of the raw
// agent-card.yaml. The caller must not modify it.
func (s *Server) Card() map[string]any { return s.info.card }

// CardJSON returns the served card as JSON.
func (s *Server) CardJSON() []byte { return s.info.json }

// Warnings are the start-up warnings about the card (they are also
// logged): why the alive extension was left out, for instance.
func (s *Server) Warnings() []string { return append([]string(nil), s.info.warnings...) }

// CardHandler serves the card with an ETag, Last-Modified and
// Cache-Control, and answers conditional GETs with 304.
func (s *Server) CardHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		serveCard(w, r, s.info, "public, max-age=300")
	})
}

// serveCard writes a built card with its validators (http.ServeContent
// answers If-None-Match, If-Modified-Since and HEAD).
func serveCard(w http.ResponseWriter, r *http.Request, info *cardInfo, cacheControl string) {
	h := w.Header()
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", string(info.etag))
	h.Set("Content-Type", "application/json")
	http.ServeContent(w, r, "", info.modified, bytes.NewReader(info.json))
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
