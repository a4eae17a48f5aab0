package a2a

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The push notification config methods on each binding: JSON-RPC (1.0
// CreateTaskPushNotificationConfig, Get..., List..., Delete...; 0.3
// tasks/pushNotificationConfig/{set,get,list,delete}), HTTP+JSON
// ({prefix}/tasks/{id}/pushNotificationConfigs[/{config}], and the same
// under /v1 for 0.3) and gRPC. Each reads its request (push_wire.go), calls
// the one operation of push.go and answers in its version's shape.

// createPushFrom creates the config a request holds, with the version's
// default ID (0.3: the task's own).
func (s *Server) createPushFrom(ctx context.Context, p runtime.Principal, r pushRequest, version string) (store.PushConfig, error) {
	c := r.Config
	c.Protocol = version
	if c.ID == "" && version == v03 {
		c.ID = r.TaskID
	}
	return s.createPush(ctx, p, r.TaskID, c)
}

// rpcPush answers a JSON-RPC push config method.
func (s *Server) rpcPush(ctx context.Context, p runtime.Principal, method string, params json.RawMessage, version string) (any, error) {
	if err := s.pushEnabled(); err != nil {
		return nil, err
	}
	r, err := decodePush(params, version == v03 && method != "tasks/pushNotificationConfig/set")
	if err != nil {
		return nil, err
	}
	switch method {
	case "CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set":
		c, err := s.createPushFrom(ctx, p, r, version)
		if err != nil {
			return nil, err
		}
		return pushAnswer(version, false, r.TaskID, c), nil
	case "GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get":
		c, err := s.getPush(ctx, p, r.TaskID, r.Config.ID)
		if err != nil {
			return nil, err
		}
		return pushAnswer(version, false, r.TaskID, c), nil
	case "ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfig", "tasks/pushNotificationConfig/list":
		cs, next, err := s.listPush(ctx, p, r.TaskID, r.PageSize, r.PageToken)
		if err != nil {
			return nil, err
		}
		return pushListAnswer(version, false, r.TaskID, cs, next), nil
	case "DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete":
		if err := s.deletePush(ctx, p, r.TaskID, r.Config.ID); err != nil {
			return nil, err
		}
		if version == v03 {
			return json.RawMessage("null"), nil
		}
		return struct{}{}, nil
	}
	return nil, errMethodNotFound("Method " + clip(method) + " does not exist")
}

// restPush answers the HTTP+JSON push config routes.
func (s *Server) restPush(w http.ResponseWriter, r *http.Request, rv restVersion) {
	ctx, p := r.Context(), s.principal(r)
	taskID, configID := r.PathValue("id"), r.PathValue("config")
	var answer any
	var err error
	switch {
	case s.push == nil:
		err = errPushNotSupported()
	case configID == "" && r.Method == http.MethodPost:
		var body []byte
		if body, err = s.readBody(w, r); err == nil {
			var req pushRequest
			if req, err = decodePush(body, false); err == nil {
				req.TaskID = taskID
				var c store.PushConfig
				if c, err = s.createPushFrom(ctx, p, req, rv.version); err == nil {
					answer = pushAnswer(rv.version, true, taskID, c)
				}
			}
		}
	case configID == "" && r.Method == http.MethodGet:
		answer, err = s.restPushList(ctx, p, taskID, r.URL.Query(), rv)
	case configID != "" && r.Method == http.MethodGet:
		var c store.PushConfig
		if c, err = s.getPush(ctx, p, taskID, configID); err == nil {
			answer = pushAnswer(rv.version, true, taskID, c)
		}
	case configID != "" && r.Method == http.MethodDelete:
		if err = s.deletePush(ctx, p, taskID, configID); err == nil {
			answer = struct{}{}
		}
	default:
		err = errMethodNotFound("Push notification configs are created with POST on the collection, read with GET and removed with DELETE")
	}
	if err != nil {
		s.restError(w, rv, err)
		return
	}
	restJSON(w, answer)
}

func (s *Server) restPushList(ctx context.Context, p runtime.Principal, taskID string, q url.Values, rv restVersion) (any, error) {
	size, err := intQuery(q, "pageSize")
	if err != nil {
		return nil, err
	}
	n := 0
	if size != nil {
		n = *size
	}
	cs, next, err := s.listPush(ctx, p, taskID, n, queryValue(q, "pageToken"))
	if err != nil {
		return nil, err
	}
	return pushListAnswer(rv.version, true, taskID, cs, next), nil
}

// decodePushProto reads a gRPC push request (its ProtoJSON is the 1.0
// params).
func decodePushProto(raw json.RawMessage) (pushRequest, error) { return decodePush(raw, false) }
