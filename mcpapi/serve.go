package mcpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/internal/auth"
)

// serveMCP serves one request of the Streamable HTTP transport: a POST
// without a session opens one (initialize); any other request goes to this
// replica's copy of its session (copies.go), made from the session ID when
// this replica has none.
func (d *door) serveMCP(w http.ResponseWriter, r *http.Request) {
	user := auth.From(r.Context()).UserID
	r.Body = http.MaxBytesReader(w, r.Body, int64(d.opts.MaxBodyBytes))
	id := r.Header.Get(sessionHeader)
	if id == "" {
		if r.Method != http.MethodPost {
			http.Error(w, "Bad Request: "+r.Method+" requires an Mcp-Session-Id header", http.StatusBadRequest)
			return
		}
		d.openSession(w, r, user)
		return
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(mcp.SupportedProtocolVersions(), v) {
		// What the SDK's handler answers (the transport alone does not check).
		http.Error(w, fmt.Sprintf("Bad Request: Unsupported protocol version (supported versions: %s)",
			strings.Join(mcp.SupportedProtocolVersions(), ",")), http.StatusBadRequest)
		return
	}
	c, ok := d.copyOf(w, r, id, user)
	if !ok {
		return
	}
	if r.Method == http.MethodDelete {
		ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
		defer cancel()
		if _, err := d.opts.Sessions.DeleteMCPSession(ctx, user, c.nonce); err != nil {
			storeUnavailable(w)
			return
		}
		d.closeCopy(c)
		d.relay(id, user, nil) // every replica closes its copy
		w.WriteHeader(http.StatusNoContent)
		return
	}
	d.serveCopy(w, r, c)
}

// openSession opens a session for user with its initialize request, booked
// first, or refused past the bounds.
func (d *door) openSession(w http.ResponseWriter, r *http.Request, user string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	init := initializeOf(body)
	if init == nil {
		// No session to open: the SDK answers as it answers any such
		// request (the error of SEP-2575 to a 2026-07-28 client, so that
		// it falls back to initialize), and keeps nothing.
		d.sessionless.ServeHTTP(w, r)
		return
	}
	if no := d.book.reserve(user, d.opts.SessionIdleTimeout); no != nil {
		no.write(w, d.opts.SessionIdleTimeout)
		return
	}
	opened := ""
	defer func() { d.book.settle(user, opened) }()
	nonce := rand.Text()
	id, err := d.tokens.SealToken(r.Context(), tokenKind, user, sealedSession{Nonce: nonce, Init: init})
	if err == nil {
		// Live before the client knows it: its next request may reach
		// another replica at once.
		err = d.opts.Sessions.PutMCPSession(r.Context(), user, nonce, d.opts.SessionIdleTimeout)
	}
	if err != nil {
		storeUnavailable(w)
		return
	}
	c, err := d.newCopy(r.Context(), id, nonce, user, nil)
	if err != nil {
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	d.copies.add(c)
	opened = id
	d.serveCopy(w, r, c)
	if c.session.InitializeParams() == nil { // initialize failed
		_, _ = d.opts.Sessions.DeleteMCPSession(context.WithoutCancel(r.Context()), user, nonce)
		d.closeCopy(c)
	}
}

// copyOf finds or makes this replica's copy of session id for user; it
// answers the request itself when there is none (404 for an ID that does
// not open for user, the answer to an unknown session).
func (d *door) copyOf(w http.ResponseWriter, r *http.Request, id, user string) (*sessionCopy, bool) {
	if c := d.copies.get(id); c != nil {
		if c.user != user {
			sessionNotFound(w)
			return nil, false
		}
		if !d.touch(w, r.Context(), user, c.nonce) {
			d.closeCopy(c) // deleted or idle: on every replica
			return nil, false
		}
		return c, true
	}
	var s sealedSession
	ok, err := d.tokens.OpenToken(r.Context(), id, tokenKind, user, &s)
	if err != nil {
		storeUnavailable(w)
		return nil, false
	}
	if !ok || s.Init == nil || s.Nonce == "" {
		sessionNotFound(w)
		return nil, false
	}
	if !d.touch(w, r.Context(), user, s.Nonce) {
		return nil, false
	}
	if no := d.book.reserve(user, d.opts.SessionIdleTimeout); no != nil {
		no.write(w, d.opts.SessionIdleTimeout)
		return nil, false
	}
	c, err := d.newCopy(r.Context(), id, s.Nonce, user, stateOf(s, r))
	if err != nil {
		d.book.settle(user, "")
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return nil, false
	}
	kept, added := d.copies.add(c)
	if !added {
		d.closeCopy(c)
	}
	d.book.settle(user, id)
	return kept, true
}

// initializeOf is what the client says in the body's initialize request
// (its capabilities, itself, its protocol version), nil without one.
func initializeOf(body []byte) *mcp.InitializeParams {
	raws := []json.RawMessage{body}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &raws) != nil {
			return nil
		}
	}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		req, isReq := msg.(*jsonrpc.Request)
		if err != nil || !isReq || req.Method != "initialize" {
			continue
		}
		var p mcp.InitializeParams
		if json.Unmarshal(req.Params, &p) != nil {
			return nil
		}
		return kept(p)
	}
	return nil
}

// kept is what a session ID keeps of initialize: what the server reads of
// the client's capabilities and who the client is, without what may be
// large (experimental capabilities, extensions, icons, descriptions), so
// that an ID stays a short header.
func kept(p mcp.InitializeParams) *mcp.InitializeParams {
	out := &mcp.InitializeParams{ProtocolVersion: p.ProtocolVersion}
	if c := p.Capabilities; c != nil {
		out.Capabilities = &mcp.ClientCapabilities{Roots: c.Roots, RootsV2: c.RootsV2, Sampling: c.Sampling, Elicitation: c.Elicitation}
	}
	if i := p.ClientInfo; i != nil {
		out.ClientInfo = &mcp.Implementation{Name: i.Name, Title: i.Title, Version: i.Version}
	}
	return out
}
