package a2a

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// A send may carry a push config in its configuration (1.0
// taskPushNotificationConfig, 0.3 pushNotificationConfig): it is stored
// with the task the send makes, before the task's first update, or with
// the task a message continues. A blocking send with a push config always
// makes a task (there is nothing to notify about a direct message).

// sendPush is the push config a send carries (sendRequest.Push).
type sendPush = store.PushConfig

// withSendPush reads the push config of a send's params into req,
// checked; the send's own decoder has read the rest.
func (s *Server) withSendPush(req *sendRequest, params json.RawMessage, version string) error {
	c, err := decodeSendPush(params, version)
	if err != nil || c == nil {
		return err
	}
	if err := s.pushEnabled(); err != nil {
		return err
	}
	if err := s.checkPushConfig(*c); err != nil {
		return err
	}
	req.Push = c
	return nil
}

// decodeSend10WithPush reads a 1.0 send with its push config (the gRPC
// binding's decoder).
func (s *Server) decodeSend10WithPush(raw json.RawMessage) (sendRequest, error) {
	req, err := decodeSend10(raw)
	if err == nil {
		err = s.withSendPush(&req, raw, v10)
	}
	return req, err
}

// pushFirst stores the push config of a message that continues a task,
// before the task goes on; a send that makes a task stores it in
// startTask.
func (s *Server) pushFirst(ctx context.Context, p runtime.Principal, req *sendRequest) error {
	if req.Push == nil || req.Message.TaskID == "" {
		return nil
	}
	if err := s.taskExists(ctx, p, req.Message.TaskID); err != nil {
		return err
	}
	if _, err := s.putPush(ctx, p, req.Message.TaskID, *req.Push); err != nil {
		return err
	}
	req.Push = nil
	return nil
}

// sendWithPush is send for a request that may carry a push config.
func (s *Server) sendWithPush(ctx context.Context, p runtime.Principal, req sendRequest) (StreamEvent, error) {
	if err := s.checkInputModes(req.Message); err != nil {
		return StreamEvent{}, err
	}
	if err := s.pushFirst(ctx, p, &req); err != nil {
		return StreamEvent{}, err
	}
	if req.Push == nil || req.ReturnImmediately || req.Message.TaskID != "" {
		return s.send(ctx, p, req)
	}
	f, err := s.startTask(ctx, p, req)
	if err != nil {
		return StreamEvent{}, err
	}
	t, err := f.wait(ctx)
	if err != nil {
		return StreamEvent{}, err
	}
	t = t.withHistory(req.HistoryLength)
	return StreamEvent{Task: &t}, nil
}

// openStreamWithPush is openStream for a request that may carry a push
// config.
func (s *Server) openStreamWithPush(ctx context.Context, p runtime.Principal, req sendRequest) (*feed, error) {
	if err := s.checkInputModes(req.Message); err != nil {
		return nil, err
	}
	if err := s.pushFirst(ctx, p, &req); err != nil {
		return nil, err
	}
	return s.openStream(ctx, p, req)
}

// storeSendPush stores a new task's push config (startTask calls it
// before the task's first update); a failure is logged, the task goes on.
func (s *Server) storeSendPush(ctx context.Context, p runtime.Principal, m *mapper, req sendRequest) {
	if req.Push == nil || s.push == nil {
		return
	}
	c := *req.Push
	if c.ID == "" && c.Protocol == v03 {
		c.ID = m.task.ID // as 0.3 servers do: the task's own config
	}
	stored, err := s.putPush(ctx, p, m.task.ID, c)
	if err != nil {
		s.log.Warn("a2a: cannot store the push config of a new task", "taskId", m.task.ID, "err", err)
		return
	}
	s.push.known(p.UserID, m.task.ID, []store.PushConfig{stored}, s.now()) // the new task's only config
	t := m.task.clone()
	s.notify(ctx, p, t, StreamEvent{Task: &t}, stored)
}

// registerJWKS serves the push signing key set at /.well-known/jwks.json.
func (s *Server) registerJWKS(mux *http.ServeMux) {
	if s.push != nil {
		mux.Handle("GET /.well-known/jwks.json", s.push.keys.jwksHandler())
	}
}

// IsPublic reports the A2A routes that need no credentials: the key set
// push notifications are signed with.
func IsPublic(r *http.Request) bool {
	return r.URL.Path == "/.well-known/jwks.json" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}
