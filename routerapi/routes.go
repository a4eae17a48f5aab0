package routerapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Prefix is where the owner routes live.
const Prefix = "/owner/router"

// maxBody bounds a settings request.
const maxBody = 64 << 10

// Options configure the owner routes.
type Options struct {
	Router Router
	// IsOwner is the relay's owner rule.
	IsOwner func(user string) bool
}

// Register mounts the owner routes.
func Register(mux *http.ServeMux, o Options) {
	h := &handler{r: o.Router, isOwner: o.IsOwner}
	mux.HandleFunc("GET "+Prefix, h.owner(h.status))
	mux.HandleFunc("POST "+Prefix+"/choice", h.owner(h.choice))
	mux.HandleFunc("POST "+Prefix+"/turns", h.owner(h.turns))
	mux.HandleFunc("POST "+Prefix+"/settings", h.owner(h.settings))
	mux.HandleFunc("POST "+Prefix+"/harnesses/{name}/pause", h.owner(h.pause(true)))
	mux.HandleFunc("POST "+Prefix+"/harnesses/{name}/resume", h.owner(h.pause(false)))
	mux.HandleFunc("GET "+Prefix+"/receipts", h.owner(h.receipts))
}

type handler struct {
	r       Router
	isOwner func(string) bool
}

// owner lets owners through; everyone else gets 404.
func (h *handler) owner(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		if user := auth.From(req.Context()).UserID; user == "" || !h.isOwner(user) {
			fail(w, http.StatusNotFound, "not_found", "Not found")
			return
		}
		next(w, req)
	}
}

// writeJSON is httpapi.WriteJSON with Cache-Control: no-store: the
// owner's view is private and current.
func writeJSON(w http.ResponseWriter, status int, v any) {
	httpapi.WriteJSON(httpapi.NoStore(w), status, v)
}

// fail is httpapi.Fail with Cache-Control: no-store (see writeJSON).
func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(httpapi.NoStore(w), status, code, detail)
}

// stored answers a store or validation error.
func stored(w http.ResponseWriter, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, runtime.ErrInvalid):
		fail(w, http.StatusBadRequest, "invalid_request", err.Error())
	case errors.Is(err, runtime.ErrNotFound):
		fail(w, http.StatusNotFound, "harness_not_found", "No harness has that name; list them with GET /owner/router.")
	default:
		fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store is unavailable; retry shortly")
	}
	return true
}

// decode reads a strict JSON body into v.
func decode(w http.ResponseWriter, req *http.Request, v any) bool {
	body, e := httpapi.ReadAtMost(w, req, maxBody)
	if e != nil {
		if e.Status == http.StatusRequestEntityTooLarge {
			e.Detail = "The body is larger than 64 KiB"
		}
		fail(w, e.Status, e.Code, e.Detail)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		fail(w, http.StatusBadRequest, "invalid_request", "The body must be one JSON object with the documented keys only")
		return false
	}
	return true
}

func (h *handler) status(w http.ResponseWriter, req *http.Request) {
	s, err := h.r.Status(req.Context(), auth.From(req.Context()).UserID)
	if stored(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (h *handler) choice(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Choice *string `json:"choice"`
	}
	if !decode(w, req, &body) {
		return
	}
	choice := ""
	if body.Choice != nil {
		choice = *body.Choice
	}
	if stored(w, h.r.SetChoice(req.Context(), choice)) {
		return
	}
	h.status(w, req)
}

func (h *handler) turns(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Owner   *string `json:"owner"`
		Visitor *string `json:"visitor"`
	}
	if !decode(w, req, &body) || stored(w, h.r.SetTurns(req.Context(), body.Owner, body.Visitor)) {
		return
	}
	h.status(w, req)
}

func (h *handler) settings(w http.ResponseWriter, req *http.Request) {
	var body Settings
	if !decode(w, req, &body) || stored(w, h.r.Apply(req.Context(), body)) {
		return
	}
	h.status(w, req)
}

func (h *handler) pause(paused bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		if stored(w, h.r.SetPaused(req.Context(), req.PathValue("name"), paused)) {
			return
		}
		h.status(w, req)
	}
}

// storeCursor is the store's cursor: a receipt's time and response ID.
var storeCursor = regexp.MustCompile(`^[0-9]{16}:.{1,200}$`)

func (h *handler) receipts(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			fail(w, http.StatusBadRequest, "invalid_request", "limit must be between 1 and 100")
			return
		}
		limit = n
	}
	cursor := ""
	if v := q.Get("cursor"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || !storeCursor.Match(b) {
			fail(w, http.StatusBadRequest, "invalid_cursor", "The cursor is malformed; use the nextCursor of the previous page")
			return
		}
		cursor = string(b)
	}
	page, err := h.r.Receipts(req.Context(), cursor, limit)
	if stored(w, err) {
		return
	}
	var next *string
	if page.Next != "" {
		s := base64.RawURLEncoding.EncodeToString([]byte(page.Next))
		next = &s
	}
	receipts := page.Receipts
	if receipts == nil {
		receipts = []store.RouterReceipt{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"receipts": receipts, "nextCursor": next})
}
