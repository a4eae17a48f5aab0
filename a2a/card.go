package a2a

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
// It is served with an ETag and Cache-Control; a matching If-None-Match
// gets 304.

// cardInfo is what the server learns from the card besides its mounts.
type cardInfo struct {
	card       map[string]any
	streaming  bool
	declared   map[string]bool // extension URIs the card declares
	required   []string        // ... of which clients must request these
	warnings   []string
	json, etag []byte
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
	if caps["pushNotifications"] == true {
		return nil, fmt.Errorf("agent-card.yaml capabilities.pushNotifications: harnest does not send A2A push notifications; remove it or set it to false")
	}
	if caps["extendedAgentCard"] == true {
		return nil, fmt.Errorf("agent-card.yaml capabilities.extendedAgentCard: harnest serves no extended agent card; remove it or set it to false")
	}
	info.streaming = caps["streaming"] == true

	if exts, ok := caps["extensions"].([]any); ok {
		kept := make([]any, 0, len(exts))
		for i, item := range exts {
			ext, _ := item.(map[string]any)
			uri, _ := ext["uri"].(string)
			if uri == AliveExtensionURI {
				if err := checkAlive(ctx, ext, o.Alive); err != nil {
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

	var base *url.URL
	if o.PublicBaseURL != "" {
		u, err := url.Parse(o.PublicBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("a2a: public base URL %q must be an absolute http or https URL without query", clip(o.PublicBaseURL))
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
	}

	if info.json, err = json.Marshal(card); err != nil {
		return nil, fmt.Errorf("a2a: agent card cannot be encoded as JSON: %w", err)
	}
	sum := sha256.Sum256(info.json)
	info.etag = []byte(`"` + hex.EncodeToString(sum[:16]) + `"`)
	return info, nil
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

// CardHandler serves the card with an ETag and Cache-Control.
func (s *Server) CardHandler() http.Handler {
	etag := string(s.info.etag)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("ETag", etag)
		h.Set("Access-Control-Allow-Origin", "*")
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(s.info.json)
		}
	})
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
