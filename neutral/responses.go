package neutral

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// parseResponseRequest checks the strict envelope of POST /responses:
// {"input": string, "sessionId"?: string, "stream"?: bool, "metadata"?: object}.
func parseResponseRequest(obj map[string]json.RawMessage) (runtime.ResponseRequest, error) {
	var req runtime.ResponseRequest
	if err := onlyKeys(obj, "input", "sessionId", "stream", "metadata"); err != nil {
		return req, err
	}
	input, has, err := stringField(obj, "input")
	if err != nil {
		return req, err
	}
	if !has || strings.TrimSpace(input) == "" {
		return req, fieldError{"input", "must be a non-blank string"}
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
	metadata, _, err := objectField(obj, "metadata")
	if err != nil {
		return req, err
	}
	return runtime.ResponseRequest{Input: input, SessionID: sessionID, Stream: stream, Metadata: compact(metadata)}, nil
}

func (a *API) createResponse(w http.ResponseWriter, r *http.Request) {
	obj, ok := a.readObject(w, r)
	if !ok {
		return
	}
	req, err := parseResponseRequest(obj)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid response request: "+err.Error())
		return
	}
	resp, err := a.svc.StartResponse(r.Context(), auth.From(r.Context()), req)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Harnest-Response-Id", resp.ID)
	w.Header().Set("Harnest-Session-Id", resp.SessionID)
	if req.Stream {
		a.stream(w, resp)
		return
	}
	out := resp.Outcome()
	if out.Err != nil {
		writeError(w, out.Err)
		return
	}
	writeRaw(w, http.StatusOK, out.Body)
}

// stream writes the response's events as named SSE frames. Closing the
// request cancels the response (its receipt says cancelled).
func (a *API) stream(w http.ResponseWriter, resp *runtime.Response) {
	sw := sse.Start(w, a.keepAlive)
	defer sw.Close()
	resp.Each(func(e runtime.Event) error {
		data, err := e.JSON()
		if err != nil {
			return err
		}
		return sw.Event(e.Type, e.Sequence, data)
	})
}

func (a *API) getResponse(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sessionID := q.Get("sessionId")
	if strings.TrimSpace(sessionID) == "" {
		fail(w, http.StatusBadRequest, "invalid_request", "sessionId must be non-empty: pass ?sessionId=<the response's session>")
		return
	}
	body, err := a.svc.GetResponse(r.Context(), auth.From(r.Context()), sessionID, r.PathValue("responseId"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, body)
}
