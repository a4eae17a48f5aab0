package live

import (
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// Steering the socket's running response: the client sends
//
//	{"type":"response.steer","responseId":...,"input":<string or content parts>,"requestId"?:...}
//
// and gets response.steer.accepted (with the steer's ID; the response's
// stream says response.steered when the turn takes it) or
// response.steer.rejected (with the code and sentence of POST
// /responses/{id}/steer's refusal). Neither has a sequence, and neither
// ends the response.

const (
	frameSteer         = "response.steer"
	frameSteerAccepted = "response.steer.accepted"
	frameSteerRejected = "response.steer.rejected"
	msgInvalidSteer    = "Invalid response.steer frame"
)

// decodeSteer checks response.steer: the response and the input, as
// response.create takes it.
func decodeSteer(f frame, obj map[string]json.RawMessage) (frame, *frameError) {
	id, ok := jsonString(obj["responseId"])
	if !ok || id == "" {
		return f, &frameError{msgInvalidSteer}
	}
	f, ferr := decodeCreate(f, obj)
	if ferr != nil {
		return f, &frameError{msgInvalidSteer}
	}
	f.ResponseID = id
	return f, nil
}

// steer hands the frame's message to the running response and answers
// with its acknowledgement or its refusal.
func (c *conn) steer(lr *liveResponse, f frame) {
	var requestID json.RawMessage
	if f.RequestID != nil {
		requestID = mustJSON(*f.RequestID)
	}
	accepted, err := c.svc.SteerResponse(c.ctx, c.p, lr.sessionID, f.ResponseID, runtime.SteerRequest{Input: f.Input, Parts: f.Parts})
	if err != nil {
		e := runtime.AsError(err)
		c.send(mustJSON(struct {
			Type       string          `json:"type"`
			ResponseID string          `json:"responseId"`
			RequestID  json.RawMessage `json:"requestId,omitempty"`
			Code       string          `json:"code"`
			Error      string          `json:"error"`
		}{frameSteerRejected, f.ResponseID, requestID, e.Code, e.Detail}))
		return
	}
	c.send(mustJSON(struct {
		Type       string          `json:"type"`
		ResponseID string          `json:"responseId"`
		SessionID  string          `json:"sessionId"`
		SteerID    string          `json:"steerId"`
		RequestID  json.RawMessage `json:"requestId,omitempty"`
	}{frameSteerAccepted, accepted.ResponseID, accepted.SessionID, accepted.ID, requestID}))
}
