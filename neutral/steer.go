package neutral

import (
	"encoding/json"

	"net/http"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// steerResponse hands a message to a running response, wherever it runs:
// POST /responses/{id}/steer?sessionId= with {"input": string or content
// parts}. 202: accepted, taken at the turn's next step (its stream says
// response.steered); 409 steer_unsupported, response_final,
// response_queued or response_waiting: refused, nothing kept.
func (a *API) steerResponse(w http.ResponseWriter, r *http.Request) {
	sessionID, ok := requireSessionID(w, r)
	if !ok {
		return
	}
	body, ok := a.readBody(w, r)
	if !ok {
		return
	}
	obj, ok := httpapi.DecodeObject(w, body)
	if !ok {
		return
	}
	req, err := parseSteerRequest(obj)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid steer request: "+err.Error())
		return
	}
	accepted, err := a.svc.SteerResponse(r.Context(), auth.From(r.Context()), sessionID, r.PathValue("responseId"), req)
	writeResult(w, http.StatusAccepted, accepted, err)
}

// parseSteerRequest checks a steer's body: {"input": string or content
// parts}, as the input of POST /responses.
func parseSteerRequest(obj map[string]json.RawMessage) (runtime.SteerRequest, error) {
	if err := onlyKeys(obj, "input"); err != nil {
		return runtime.SteerRequest{}, err
	}
	input, parts, err := inputField(obj)
	if err != nil {
		return runtime.SteerRequest{}, err
	}
	return runtime.SteerRequest{Input: input, Parts: parts}, nil
}
