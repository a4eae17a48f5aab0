package neutral

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// parseResponseRequest checks the strict envelope of POST /responses:
// {"input": string, "sessionId"?: string, "stream"?: bool, "metadata"?: object}.
func parseResponseRequest(obj map[string]json.RawMessage) (runtime.ResponseRequest, error) {
	var req runtime.ResponseRequest
	if err := onlyKeys(obj, "input", "sessionId", "stream", "metadata", "background", "webhook", "onBusy"); err != nil {
		return req, err
	}
	input, parts, err := inputField(obj)
	if err != nil {
		return req, err
	}
	sessionID, has, err := stringField(obj, "sessionId")
	if err != nil {
		return req, err
	}
	if has && sessionID == "" {
		return req, fieldError{"sessionId", "must be non-empty"}
	}
	stream, err := boolField(obj, "stream")
	if err != nil {
		return req, err
	}
	background, err := boolField(obj, "background")
	if err != nil {
		return req, err
	}
	metadata, _, err := objectField(obj, "metadata")
	if err != nil {
		return req, err
	}
	webhook, err := webhookField(obj) // webhook.go
	if err != nil {
		return req, err
	}
	onBusy, err := onBusyField(obj)
	if err != nil {
		return req, err
	}
	return runtime.ResponseRequest{Input: input, Parts: parts, SessionID: sessionID, Stream: stream, Background: background, Metadata: jsonwrite.Compact(metadata),
		Transport: runtime.NeutralTransport(stream), Webhook: webhook, OnBusy: onBusy}, nil
}

// inputField reads "input": a non-blank string, or a non-empty array of
// content parts — {"type":"text","text":...} and
// {"type":"image"|"audio"|"video"|"file","assetId":...} — whose text parts
// are joined with newlines.
func inputField(obj map[string]json.RawMessage) (string, []runtime.InputPart, error) {
	raw, ok := obj["input"]
	if !ok {
		return "", nil, fieldError{"input", "is required"}
	}
	if len(raw) > 0 && raw[0] == '[' {
		return parseParts(raw)
	}
	if len(raw) > 0 && raw[0] == '{' {
		return typedInput(raw) // typed_input.go
	}
	input, _, err := stringField(obj, "input")
	if err != nil || strings.TrimSpace(input) == "" {
		return "", nil, fieldError{"input", "must be a non-blank string, an array of content parts, or an object (typed agents)"}
	}
	return input, nil, nil
}

func parseParts(raw json.RawMessage) (string, []runtime.InputPart, error) {
	invalid := fieldError{"input", `parts must be {"type":"text","text":...}, {"type":"image"|"audio"|"video"|"file","assetId":...}, ` +
		`{"type":"file","url":...,"mediaType"?:...,"name"?:...} or {"type":"data","data":<any JSON>}`}
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 || len(items) > 64 {
		return "", nil, invalid
	}
	var texts []string
	parts := make([]runtime.InputPart, 0, len(items))
	for _, item := range items {
		typ, _, err := stringField(item, "type")
		if err != nil {
			return "", nil, invalid
		}
		part, ok := inputPart(item, typ)
		if !ok {
			return "", nil, invalid
		}
		if typ == "text" {
			texts = append(texts, part.Text)
		}
		parts = append(parts, part)
	}
	input := strings.Join(texts, "\n")
	if strings.TrimSpace(input) == "" && len(texts) == len(parts) {
		return "", nil, fieldError{"input", "must contain non-blank text or media"}
	}
	return input, parts, nil
}

// inputPart reads one part of an input array: text, a session asset, a
// file by URL (the server never fetches it; the runtime checks the URL) or
// a data part (any JSON value).
func inputPart(item map[string]json.RawMessage, typ string) (runtime.InputPart, bool) {
	switch {
	case typ == "text":
		text, has, err := stringField(item, "text")
		return runtime.InputPart{Type: "text", Text: text}, err == nil && has && len(item) == 2
	case typ == "data":
		data, has := item["data"]
		return runtime.InputPart{Type: "data", Data: data}, has && len(item) == 2
	case typ == "file" && item["url"] != nil:
		url, _, err := stringField(item, "url")
		mediaType, _, err1 := stringField(item, "mediaType")
		name, _, err2 := stringField(item, "name")
		ok := err == nil && err1 == nil && err2 == nil && url != "" && onlyKeys(item, "type", "url", "mediaType", "name") == nil
		return runtime.InputPart{Type: "file", URL: url, MediaType: mediaType, Name: name}, ok
	case typ == "image", typ == "audio", typ == "video", typ == "file":
		id, has, err := stringField(item, "assetId")
		return runtime.InputPart{Type: typ, AssetID: id}, err == nil && has && id != "" && len(item) == 2
	}
	return runtime.InputPart{}, false
}

// readResponseRequest reads and checks a POST /responses body. The common
// body is decoded in one pass (fastResponseRequest); any other, and every
// invalid one, the general way, which finds the exact error. ok is false
// when an error was already written.
func (a *API) readResponseRequest(w http.ResponseWriter, r *http.Request) (runtime.ResponseRequest, bool) {
	body, ok := a.readBody(w, r)
	if !ok {
		return runtime.ResponseRequest{}, false
	}
	typed := a.svc.Contract().InputSchema() != nil
	if req, ok := fastRequest(body, typed); ok {
		return req, true
	}
	return generalResponseRequest(w, body, typed)
}

// generalResponseRequest decodes a body the general way: the whole body
// into a map, then parseResponseRequest, which words every error.
func generalResponseRequest(w http.ResponseWriter, body []byte, typed bool) (runtime.ResponseRequest, bool) {
	obj, ok := httpapi.DecodeObject(w, body)
	if !ok {
		return runtime.ResponseRequest{}, false
	}
	if !typed && isObject(obj["input"]) {
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid response request: input must be a non-blank string or an array of content parts; "+
			"an object is for agents with an input schema (spec.inputSchema)")
		return runtime.ResponseRequest{}, false
	}
	req, err := parseResponseRequest(obj)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid response request: "+err.Error())
		return runtime.ResponseRequest{}, false
	}
	return req, true
}

func (a *API) createResponse(w http.ResponseWriter, r *http.Request) {
	req, ok := a.readResponseRequest(w, r)
	if !ok {
		return
	}
	resp, err := a.svc.StartResponse(r.Context(), auth.From(r.Context()), req)
	if err != nil {
		writeError(w, err)
		return
	}
	httpapi.SetHeaders(w.Header(), "Harnest-Response-Id", resp.ID, "Harnest-Session-Id", resp.SessionID)
	if req.Stream {
		a.stream(w, resp)
		return
	}
	if req.Background {
		// The run goes on without this request: answer with the receipt
		// as it is now (in_progress, unless it already reached a boundary).
		body, err := a.svc.GetResponse(r.Context(), auth.From(r.Context()), resp.SessionID, resp.ID)
		writeReceipt(w, body, err)
		return
	}
	out := resp.Outcome()
	if out.Err != nil {
		writeError(w, out.Err)
		return
	}
	writeRaw(w, http.StatusOK, out.Body)
}

// stream writes the response's events as named SSE frames, up to its first
// boundary. Closing the request cancels the response (its receipt says
// cancelled) unless it runs in the background.
func (a *API) stream(w http.ResponseWriter, resp *runtime.Response) {
	sw := sse.Open(w, a.keepAlive) // response.created follows at once: one write for both
	defer sw.Close()
	resp.Each(func(e runtime.Event) error {
		data, err := e.JSON()
		if err != nil {
			return err
		}
		return sw.Write(e.Type, e.Sequence, data, resp.Queued() == 0)
	})
}

func (a *API) getResponse(w http.ResponseWriter, r *http.Request) {
	writeResponseCall(w, r, a.svc.GetResponse)
}

// getEvents replays a response's events after a position and follows it live
// until it ends, from any replica: GET /responses/{id}/events?sessionId=&after=N.
// With both after and Last-Event-ID (an EventSource that reconnects), it
// resumes after the later of the two. Leaving never cancels the response.
func (a *API) getEvents(w http.ResponseWriter, r *http.Request) {
	sessionID, after, ok := a.eventsRequest(w, r)
	if !ok {
		return
	}
	// The stream starts at once, with keep-alives: a follower of a
	// response that waits (for an approval, say) sees the 200 now, not
	// when the next event comes, so it can tell a live follow from a hung
	// server.
	sw := sse.Start(w, a.keepAlive)
	defer sw.Close()
	err := a.svc.Follow(r.Context(), auth.From(r.Context()), sessionID, r.PathValue("responseId"), after, func(f runtime.Frame) (bool, error) {
		return false, sw.Event(f.Type, f.Sequence, f.JSON)
	})
	if err != nil && r.Context().Err() == nil {
		writeStreamError(sw, err)
	}
}

// eventsRequest checks GET /responses/{id}/events before its stream starts,
// so that a wrong ID is a plain 404: the session, the position after which
// to replay, and that the response exists. ok is false when an error was
// already written. (It is not part of getEvents so that its locals are not
// in the frame where an idle follower waits: thousands of followers each
// keep their goroutine's stack.)
func (a *API) eventsRequest(w http.ResponseWriter, r *http.Request) (sessionID string, after int, ok bool) {
	sessionID, ok = requireSessionID(w, r)
	if !ok {
		return "", 0, false
	}
	after, given, valid := sse.ResumeAfter(r, parseSequence, func(a, b int) bool { return a > b })
	if !valid {
		fail(w, http.StatusBadRequest, "invalid_after", "after (or Last-Event-ID) must be an event sequence: an integer from -1")
		return "", 0, false
	}
	if !given {
		after = -1
	}
	if _, err := a.svc.GetResponse(r.Context(), auth.From(r.Context()), sessionID, r.PathValue("responseId")); err != nil {
		writeError(w, err)
		return "", 0, false
	}
	return sessionID, after, true
}

// parseSequence reads an event sequence given as a resume point: an
// integer from -1.
func parseSequence(raw string) (int, bool) {
	n, err := strconv.Atoi(raw)
	return n, err == nil && n >= -1
}

// writeStreamError ends an event stream with an error it met after its 200:
// too late for a status, it is the stream's last frame. (A function of its
// own, so that its locals are not in the frame of getEvents, where an idle
// follower waits.)
func writeStreamError(sw *sse.Writer, err error) {
	e := runtime.AsError(err)
	b, _ := json.Marshal(map[string]string{"type": runtime.EventError, "error": e.Detail, "code": e.Code})
	_ = sw.Event(runtime.EventError, -1, b)
}

// cancelResponse cancels a response wherever it runs and returns its final
// receipt: POST /responses/{id}/cancel?sessionId=. Idempotent.
func (a *API) cancelResponse(w http.ResponseWriter, r *http.Request) {
	writeResponseCall(w, r, a.svc.CancelResponse)
}

func requireSessionID(w http.ResponseWriter, r *http.Request) (string, bool) {
	sessionID := r.URL.Query().Get("sessionId")
	if strings.TrimSpace(sessionID) == "" {
		fail(w, http.StatusBadRequest, "invalid_request", "sessionId must be non-empty: pass ?sessionId=<the response's session>")
		return "", false
	}
	return sessionID, true
}
