package trigger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// View is the answer to an accepted delivery (202).
type View struct {
	Trigger    string `json:"trigger"`
	DeliveryID string `json:"deliveryId"`
	// Action is "started" (a new turn) or "answered" (a waiting turn
	// resumes).
	Action     string `json:"action"`
	ResponseID string `json:"responseId"`
	SessionID  string `json:"sessionId"`
	WaitID     string `json:"waitId,omitempty"`
}

// principal is who the trigger acts as.
func (t *trigger) principal() runtime.Principal {
	if t.User == "" {
		return runtime.Anonymous
	}
	return runtime.Principal{UserID: t.User}
}

// act does what the plan says: answers the wait, or starts the turn.
func (ts *Triggers) act(ctx context.Context, t *trigger, deliveryID string, p plan) (View, error) {
	v := View{Trigger: t.Name, DeliveryID: deliveryID}
	if p.answers {
		return ts.answer(ctx, t, p, v)
	}
	return ts.start(ctx, t, deliveryID, p, v)
}

// answer hands the decision or output to the waiting turn, through the
// runtime's answer path, without waiting for its next boundary.
func (ts *Triggers) answer(ctx context.Context, t *trigger, p plan, v View) (View, error) {
	var res runtime.Resumption
	var err error
	if p.approve != nil {
		res, err = ts.o.Service.AnswerApproval(ctx, t.principal(), p.waitID, *p.approve)
	} else {
		res, err = ts.o.Service.AnswerClientTool(ctx, t.principal(), p.waitID, p.output)
	}
	if err != nil {
		return View{}, err
	}
	v.Action, v.ResponseID, v.SessionID, v.WaitID = "answered", res.ResponseID, res.SessionID, p.waitID
	return v, nil
}

// start starts a background turn in the session the key names (created
// when it does not exist), or in a new session.
func (ts *Triggers) start(ctx context.Context, t *trigger, deliveryID string, p plan, v View) (View, error) {
	svc := ts.o.Service
	sessionID := ""
	if p.sessionKey != "" {
		var err error
		if sessionID, err = ts.session(ctx, t, p.sessionKey); err != nil {
			return View{}, err
		}
	}
	meta, _ := json.Marshal(map[string]string{"trigger": t.Name, "deliveryId": deliveryID})
	r, err := svc.StartResponse(ctx, t.principal(), runtime.ResponseRequest{
		Input: p.input, SessionID: sessionID, Background: true, Transport: runtime.TransportTrigger,
		OnBusy: t.OnBusy, Metadata: meta,
	})
	if err != nil {
		return View{}, err
	}
	v.Action, v.ResponseID, v.SessionID = "started", r.ID, r.SessionID
	return v, nil
}

// session makes sure the session a key names exists: the key itself when
// it is a valid session ID, else "trigger-<name>-" and a hash of the key.
func (ts *Triggers) session(ctx context.Context, t *trigger, key string) (string, error) {
	svc, p := ts.o.Service, t.principal()
	_, err := svc.CreateSession(ctx, p, key, nil)
	if err != nil && runtime.AsError(err).Code == "invalid_session" {
		sum := sha256.Sum256([]byte(key))
		key = "trigger-" + t.Name + "-" + hex.EncodeToString(sum[:16])
		_, err = svc.CreateSession(ctx, p, key, nil)
	}
	if err != nil && runtime.AsError(err).Code != "session_exists" {
		return "", err
	}
	return key, nil
}
