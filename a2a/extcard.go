package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/harnest/harnest/runtime"
)

// The extended agent card: agent-card.extended.yaml, which the folder
// loader lays over agent-card.yaml (Options.ExtendedCard), built like the
// public card (interface URLs rebased, the 0.3 fields added) and served to
// authenticated callers by GetExtendedAgentCard (1.0 JSON-RPC),
// agent/getAuthenticatedExtendedCard (0.3 JSON-RPC), GET /extendedAgentCard
// (1.0 HTTP+JSON) and GET /v1/card (0.3 HTTP+JSON).
//
// Without the file the public card does not declare the capability, and
// the methods answer as the spec asks of an undeclared extended card:
// UnsupportedOperationError (-32004) in 1.0, and in 0.3, which has no such
// rule, AuthenticatedExtendedCardNotConfiguredError (-32007). A caller
// without a principal gets the auth error (-31401, HTTP 401); with tokens
// configured, the auth middleware refuses a missing or wrong token before
// the request gets here. With no tokens configured, every caller is the
// same anonymous user and is served.

// buildExtendedCard builds the served extended card; nil without one.
func buildExtendedCard(ctx context.Context, o Options) (*cardInfo, error) {
	if o.ExtendedCard == nil {
		return nil, nil
	}
	eo := o
	eo.Card = o.ExtendedCard
	info, err := buildCard(ctx, eo)
	if err != nil {
		return nil, fmt.Errorf("agent-card.extended.yaml: %w", err)
	}
	for i, w := range info.warnings {
		info.warnings[i] = "agent-card.extended.yaml: " + w
	}
	return info, nil
}

// extendedCard returns the extended card for the caller, or the error the
// version answers.
func (s *Server) extendedCard(p runtime.Principal, version string) (json.RawMessage, *Error) {
	if s.extended == nil {
		if version == v03 {
			return nil, errExtendedCard()
		}
		return nil, errUnsupported("This agent declares no extended agent card (capabilities.extendedAgentCard is not set)")
	}
	if p.UserID == "" {
		return nil, errUnauthenticated("The extended agent card is for authenticated callers: send Authorization: Bearer <token>")
	}
	return s.extended.json, nil
}

// ExtendedCard returns the served extended card, nil without one. The
// caller must not modify it.
func (s *Server) ExtendedCard() map[string]any {
	if s.extended == nil {
		return nil
	}
	return s.extended.card
}

// restExtendedCard serves GET /extendedAgentCard and GET /v1/card, with the
// card's validators: an authenticated caller may revalidate it.
func (s *Server) restExtendedCard(w http.ResponseWriter, r *http.Request, rv restVersion) {
	if _, e := s.extendedCard(s.principal(r), rv.version); e != nil {
		s.restError(w, rv, e)
		return
	}
	serveCard(w, r, s.extended, "private, max-age=300")
}
