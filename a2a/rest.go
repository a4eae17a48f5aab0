package a2a

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/sse"
)

// The HTTP+JSON binding: the 1.0 paths at the mount (/message:send,
// /message:stream, /tasks, /tasks/{id}, /tasks/{id}:cancel,
// /tasks/{id}:subscribe by GET or POST) and, when the card declares 0.3
// for the mount, the same paths under /v1/ in the ProtoJSON of the 0.3
// proto. Errors are application/json: google.rpc.Status for 1.0, {code,
// message} for 0.3, with the HTTP status of the error.

// restVersion is one generation of REST routes.
type restVersion struct {
	version string
	codec   codec
	decode  func(json.RawMessage) (sendRequest, error)
}

func (s *Server) registerREST(mux *http.ServeMux, m mount) {
	gens := []struct {
		version, prefix string
		rv              restVersion
	}{
		{v10, m.prefix(), restVersion{v10, codec10{}, decodeSend10}},
		{v03, m.prefix() + "/v1", restVersion{v03, codec03REST{}, decodeSend03REST}},
	}
	for _, g := range gens {
		if !m.versions[g.version] {
			continue
		}
		p, rv := g.prefix, g.rv
		mux.Handle("POST "+p+"/message:send", s.rest(rv, s.restSend))
		mux.Handle("POST "+p+"/message:stream", s.rest(rv, s.restStream))
		mux.Handle("GET "+p+"/tasks", s.rest(rv, s.restList))
		mux.Handle("GET "+p+"/tasks/{id}", s.rest(rv, s.restTaskGET))
		mux.Handle("POST "+p+"/tasks/{id}", s.rest(rv, s.restTaskPOST))
		push := s.rest(rv, s.restPush) // push_rest.go
		mux.Handle(p+"/tasks/{id}/pushNotificationConfigs", push)
		mux.Handle(p+"/tasks/{id}/pushNotificationConfigs/{config}", push)
		card := "/extendedAgentCard"
		if g.version == v03 {
			card = "/card"
		}
		mux.Handle("GET "+p+card, s.rest(rv, s.restExtendedCard))
	}
}

// rest wraps a route: the version header must agree with the path, and
// required extensions must be activated.
func (s *Server) rest(rv restVersion, h func(http.ResponseWriter, *http.Request, restVersion)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := requestVersion(r); v != "" && v != rv.version {
			s.restError(w, rv, errVersion(fmt.Sprintf("A2A version %q is not served at this path; it serves %s", clip(v), rv.version)))
			return
		}
		if e := s.checkExtensions(w, r, rv.version); e != nil {
			s.restError(w, rv, e)
			return
		}
		h(w, r, rv)
	})
}

type statusBody struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []any  `json:"details"`
	} `json:"error"`
}

// restErrorBody is an error in the version's shape.
func restErrorBody(rv restVersion, e *Error) []byte {
	var b []byte
	if rv.version == v03 {
		b, _ = json.Marshal(rpcErrorBody{Code: e.Code, Message: e.Message})
		return b
	}
	var body statusBody
	body.Error.Code, body.Error.Status, body.Error.Message = e.HTTP, e.Status, e.Message
	body.Error.Details = errorDetails(e)
	b, _ = json.Marshal(body)
	return b
}

// restError answers err in A2A's REST error shape ({"error":{"code",
// "status","message","details"}}), which A2A clients read: this door keeps
// its own error writer.
func (s *Server) restError(w http.ResponseWriter, rv restVersion, err error) {
	e := asA2A(err)
	w.Header().Set("Content-Type", "application/json")
	if e.HTTP == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="harnest"`)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(retrySeconds(e.RetryAfter), 10))
	}
	w.WriteHeader(e.HTTP)
	_, _ = w.Write(restErrorBody(rv, e))
}

// restJSON answers 200 with v (httpapi.WriteRaw); a value that cannot be
// encoded is a 500 in A2A's REST error shape.
func restJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}`, http.StatusInternalServerError)
		return
	}
	httpapi.WriteRaw(w, http.StatusOK, b)
}

// readBody reads a bounded request body (httpapi.ReadAtMost); a refusal
// is an A2A invalid-request error.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, e := httpapi.ReadAtMost(w, r, s.maxBody)
	switch {
	case e == nil:
		return body, nil
	case e.Status == http.StatusRequestEntityTooLarge:
		return nil, errInvalidRequest(fmt.Sprintf("The request body exceeds %d bytes", s.maxBody))
	}
	return nil, errInvalidRequest(e.Detail)
}

// restRequest reads and decodes a send request; ok is false when the error
// was already answered.
func (s *Server) restRequest(w http.ResponseWriter, r *http.Request, rv restVersion) (sendRequest, bool) {
	body, err := s.readBody(w, r)
	if err == nil {
		var req sendRequest
		if req, err = rv.decode(body); err == nil {
			if err = s.withSendPush(&req, body, rv.version); err == nil {
				return req, true
			}
		}
	}
	s.restError(w, rv, err)
	return sendRequest{}, false
}

func (s *Server) restSend(w http.ResponseWriter, r *http.Request, rv restVersion) {
	req, ok := s.restRequest(w, r, rv)
	if !ok {
		return
	}
	res, err := s.sendWithPush(r.Context(), s.principal(r), req)
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	restJSON(w, rv.codec.result(res))
}

func (s *Server) restStream(w http.ResponseWriter, r *http.Request, rv restVersion) {
	req, ok := s.restRequest(w, r, rv)
	if !ok {
		return
	}
	f, err := s.openStreamWithPush(r.Context(), s.principal(r), req)
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	sw := sse.Start(w, s.keepAlive)
	defer sw.Close()
	_ = f.each(r.Context(), func(e StreamEvent) error { return restEvent(sw, rv, e) })
}

func restEvent(sw *sse.Writer, rv restVersion, e StreamEvent) error {
	b, err := json.Marshal(rv.codec.event(e))
	if err != nil {
		return err
	}
	return sw.Event("", -1, b)
}

// restStreamError ends a stream that started with an error event.
func restStreamError(sw *sse.Writer, rv restVersion, err error) {
	e := asA2A(err)
	if rv.version == v03 {
		_ = sw.Event("error", -1, restErrorBody(rv, e))
		return
	}
	_ = sw.Event("", -1, restErrorBody(rv, e))
}

// splitTaskPath splits "{id}:action" (the action is "" for a plain ID).
func splitTaskPath(seg string) (id, action string) {
	if i := strings.LastIndexByte(seg, ':'); i >= 0 {
		switch seg[i+1:] {
		case "cancel", "subscribe":
			return seg[:i], seg[i+1:]
		}
	}
	return seg, ""
}

func (s *Server) restTaskGET(w http.ResponseWriter, r *http.Request, rv restVersion) {
	id, action := splitTaskPath(r.PathValue("id"))
	switch action {
	case "subscribe":
		s.restSubscribe(w, r, rv, id)
		return
	case "cancel":
		s.restError(w, rv, errMethodNotFound("Cancel a task with POST"))
		return
	}
	h, err := intQuery(r.URL.Query(), "historyLength")
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	t, err := s.getTask(r.Context(), s.principal(r), id, h)
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	restRead(w, r, rv.codec.task(t), t.Status.Timestamp)
}

// restRead writes the answer of a read (GET /tasks/{id}) with validators:
// an ETag of the body (the same on every replica) and Last-Modified, the
// time of the task's status. A matching If-None-Match gets 304. The answer
// is the caller's own: private, revalidated on every use.
func restRead(w http.ResponseWriter, r *http.Request, v any, modified string) {
	b, err := json.Marshal(v)
	if err != nil {
		restJSON(w, v)
		return
	}
	etag := string(etagOf(b))
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "private, no-cache")
	if t, err := time.Parse(time.RFC3339Nano, modified); err == nil {
		h.Set("Last-Modified", t.UTC().Format(http.TimeFormat))
	}
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	httpapi.WriteRaw(w, http.StatusOK, b)
}

func (s *Server) restTaskPOST(w http.ResponseWriter, r *http.Request, rv restVersion) {
	id, action := splitTaskPath(r.PathValue("id"))
	switch action {
	case "cancel":
		t, err := s.cancelTask(r.Context(), s.principal(r), id)
		if err != nil {
			s.restError(w, rv, err)
			return
		}
		restJSON(w, rv.codec.task(t))
	case "subscribe":
		s.restSubscribe(w, r, rv, id)
	default:
		s.restError(w, rv, errMethodNotFound("POST a task with :cancel or :subscribe"))
	}
}

func (s *Server) restSubscribe(w http.ResponseWriter, r *http.Request, rv restVersion, id string) {
	if id == "" || len(id) > maxIDLength {
		s.restError(w, rv, errInvalidParams("a task ID is required"))
		return
	}
	ctx, p := r.Context(), s.principal(r)
	m, err := s.openSubscription(ctx, p, id)
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	sw := sse.Start(w, s.keepAlive)
	defer sw.Close()
	if err := s.follow(ctx, p, m, func(e StreamEvent) error { return restEvent(sw, rv, e) }); err != nil && ctx.Err() == nil {
		restStreamError(sw, rv, err)
	}
}

func (s *Server) restList(w http.ResponseWriter, r *http.Request, rv restVersion) {
	q, err := decodeListQuery(r.URL.Query())
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	l, err := s.listTasks(r.Context(), s.principal(r), q)
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	restJSON(w, rv.codec.list(l))
}

// decodeListQuery reads ListTasks from query parameters (camelCase; a2a-go
// names the timestamp filter lastUpdatedAfter).
func decodeListQuery(v url.Values) (listRequest, error) {
	size, err := intQuery(v, "pageSize")
	if err != nil {
		return listRequest{}, err
	}
	history, err := intQuery(v, "historyLength")
	if err != nil {
		return listRequest{}, err
	}
	after := queryValue(v, "statusTimestampAfter")
	if after == "" {
		after = queryValue(v, "lastUpdatedAfter")
	}
	artifacts := false
	switch strings.ToLower(queryValue(v, "includeArtifacts")) {
	case "", "false":
	case "true":
		artifacts = true
	default:
		return listRequest{}, invalidf("includeArtifacts must be true or false")
	}
	return listFrom(queryValue(v, "contextId"), v.Get("status"), size, queryValue(v, "pageToken"), history, after, artifacts)
}

func intQuery(v url.Values, name string) (*int, error) {
	raw := queryValue(v, name)
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return nil, invalidf("%s must be an integer", name)
	}
	return &n, nil
}
