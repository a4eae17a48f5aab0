package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/sse"
)

// The JSON-RPC binding: one endpoint (with or without a trailing slash)
// that serves A2A 1.0 (A2A-Version: 1.0; SendMessage, SendStreamingMessage,
// GetTask, ListTasks, CancelTask, SubscribeToTask) and 0.3 (no version
// header; message/send, message/stream, tasks/get, tasks/cancel,
// tasks/resubscribe), each version with its own shapes and error codes.
// Errors are JSON-RPC error objects with HTTP 200 (clients of both versions
// expect that); a streaming call that fails gets one as an event of its
// stream, also before its first event.

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	ID     json.RawMessage // the id as sent (string, number or null)
	Method string
	Params json.RawMessage
}

// parseRPC reads a JSON-RPC request; an error comes with the id when it
// could be read.
func parseRPC(body []byte) (rpcRequest, *Error) {
	var req rpcRequest
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return req, errParse("The request body is empty; send a JSON-RPC 2.0 request")
	}
	if !utf8.Valid(t) {
		return req, errParse("The request is not valid UTF-8; send JSON encoded as UTF-8")
	}
	if t[0] == '[' {
		return req, errInvalidRequest("Batch requests are not supported")
	}
	if t[0] != '{' {
		return req, errParse("The request body is not valid JSON")
	}
	raw, ok := decodeEnvelope(t)
	if !ok {
		return req, errParse("The request body is not valid JSON")
	}
	if id := bytes.TrimSpace(raw.ID); len(id) > 0 {
		switch c := id[0]; {
		case c == '"', c == '-', c >= '0' && c <= '9', string(id) == "null":
			req.ID = id
		default:
			return req, errInvalidRequest("id must be a string, a number or null")
		}
	}
	if string(bytes.TrimSpace(raw.JSONRPC)) != `"2.0"` {
		return req, errInvalidRequest(`jsonrpc must be "2.0"`)
	}
	// A method of another JSON type is an invalid request, not a parse
	// error: the JSON itself is fine.
	if isNull(raw.Method) {
		return req, errInvalidRequest("method is required")
	}
	if req.Method, ok = methodOf(raw.Method); !ok {
		return req, errInvalidRequest("method must be a string")
	}
	if req.Method == "" {
		return req, errInvalidRequest("method is required")
	}
	if p := bytes.TrimSpace(raw.Params); len(p) > 0 && string(p) != "null" && p[0] != '{' {
		return req, errInvalidParams("params must be an object")
	}
	req.Params = raw.Params
	return req, nil
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// errorInfo is the google.rpc.ErrorInfo detail of 1.0 errors.
type errorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func errorInfoOf(e *Error) errorInfo {
	return errorInfo{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: e.Reason, Domain: "a2a-protocol.org"}
}

// retryInfo is the google.rpc.RetryInfo detail of an error that says when
// to retry (ProtoJSON Duration: seconds with an "s").
type retryInfo struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
}

// errorDetails are a 1.0 error's details: its ErrorInfo, and its
// RetryInfo when it has one.
func errorDetails(e *Error) []any {
	details := []any{errorInfoOf(e)}
	if e.RetryAfter > 0 {
		details = append(details, retryInfo{Type: "type.googleapis.com/google.rpc.RetryInfo",
			RetryDelay: fmt.Sprintf("%ds", retrySeconds(e.RetryAfter))})
	}
	return details
}

// retrySeconds is a wait in whole seconds, rounded up.
func retrySeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

func rpcError(e *Error, version string) rpcErrorBody {
	b := rpcErrorBody{Code: e.Code, Message: e.Message}
	if version != v03 {
		b.Data = errorDetails(e)
	}
	return b
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcErrorBody   `json:"error,omitempty"`
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// writeRPC answers with a JSON-RPC response ({"jsonrpc","id","result" or
// "error"}), A2A's JSON-RPC wire: this door keeps its own writer. It
// leaves Content-Length to net/http (httpapi.WriteRaw would spend an
// allocation on it in A2A send, a benchmarked path).
func writeRPC(w http.ResponseWriter, resp rpcResponse) {
	resp.JSONRPC, resp.ID = "2.0", idOrNull(resp.ID)
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(rpcResponse{JSONRPC: "2.0", ID: resp.ID,
			Error: &rpcErrorBody{Code: -32603, Message: "Internal error"}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func writeRPCError(w http.ResponseWriter, id json.RawMessage, err error, version string) {
	e := rpcError(asA2A(err), version)
	writeRPC(w, rpcResponse{ID: id, Error: &e})
}

// methods10 and methods03 are the JSON-RPC methods of each version.
var methods10 = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "GetTask": true, "ListTasks": true, "CancelTask": true,
	"SubscribeToTask": true, "CreateTaskPushNotificationConfig": true, "GetTaskPushNotificationConfig": true,
	"ListTaskPushNotificationConfigs": true, "ListTaskPushNotificationConfig": true,
	"DeleteTaskPushNotificationConfig": true, "GetExtendedAgentCard": true,
}

var methods03 = map[string]bool{
	"message/send": true, "message/stream": true, "tasks/get": true, "tasks/cancel": true, "tasks/resubscribe": true,
	"tasks/pushNotificationConfig/set": true, "tasks/pushNotificationConfig/get": true,
	"tasks/pushNotificationConfig/list": true, "tasks/pushNotificationConfig/delete": true,
	"agent/getAuthenticatedExtendedCard": true, "tasks/list": true,
}

// streamMethods answer with an event stream.
var streamMethods = map[string]bool{
	"SendStreamingMessage": true, "SubscribeToTask": true, "message/stream": true, "tasks/resubscribe": true,
}

// pickVersion decides a request's spec version: A2A-Version when sent,
// otherwise the method's family (slash names are 0.3). The mount must
// serve it.
func pickVersion(r *http.Request, method string, m mount) (string, *Error) {
	v := requestVersion(r)
	if v == "" {
		v = v10
		if strings.Contains(method, "/") {
			v = v03
		}
	}
	if !m.versions[v] {
		return v, errVersion(fmt.Sprintf("A2A version %q is not served here; this interface serves %s", clip(v), m.versionList()))
	}
	return v, nil
}

func (s *Server) jsonrpcHandler(m mount) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readRPCBody(w, r, s.maxBody)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeRPCError(w, nil, errInvalidRequest(fmt.Sprintf("The request body exceeds %d bytes", s.maxBody)), requestVersion(r))
			}
			return // otherwise the client went away
		}
		req, perr := parseRPC(body)
		if perr != nil {
			writeRPCError(w, req.ID, perr, requestVersion(r))
			return
		}
		// From here the method is known: a streaming method's errors go
		// in a stream (see dispatchRPC).
		refuse := func(err error, version string) {
			if streamMethods[req.Method] {
				writeRPCStreamError(w, req.ID, err, version)
				return
			}
			writeRPCError(w, req.ID, err, version)
		}
		version, verr := pickVersion(r, req.Method, m)
		if verr != nil {
			refuse(verr, v10)
			return
		}
		if (version == v10 && !methods10[req.Method]) || (version == v03 && !methods03[req.Method]) {
			msg := fmt.Sprintf("Method %q does not exist in A2A %s", clip(req.Method), version)
			if version == v03 && methods10[req.Method] {
				msg += "; A2A 1.0 methods need the header A2A-Version: 1.0"
			}
			writeRPCError(w, req.ID, errMethodNotFound(msg), version)
			return
		}
		if e := s.checkExtensions(w, r, version); e != nil {
			refuse(e, version)
			return
		}
		var c codec = codec10{}
		if version == v03 {
			c = codec03{}
		}
		s.dispatchRPC(w, r, req, version, c)
	})
}

// readRPCBody reads a request body of at most limit bytes
// (httpapi.ReadAtMost); a *http.MaxBytesError in its error says it was
// too large.
func readRPCBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, e := httpapi.ReadAtMost(w, r, limit)
	if e != nil {
		return nil, e
	}
	return body, nil
}

// dispatchRPC answers one JSON-RPC call of a known method.
func (s *Server) dispatchRPC(w http.ResponseWriter, r *http.Request, req rpcRequest, version string, c codec) {
	call := &rpcCall{s: s, w: w, ctx: r.Context(), p: s.principal(r), req: req, version: version, c: c}
	switch req.Method {
	case "SendMessage", "message/send":
		call.send()
	case "SendStreamingMessage", "message/stream":
		call.sendStreaming()
	case "GetTask", "tasks/get":
		call.getTask()
	case "ListTasks", "tasks/list":
		call.listTasks()
	case "CancelTask", "tasks/cancel":
		call.cancelTask()
	case "SubscribeToTask", "tasks/resubscribe":
		call.subscribe()
	case "GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard":
		call.extendedCard()
	default: // the push notification config methods (push_rpc.go)
		call.push()
	}
}

// writeRPCStreamError answers a streaming call that fails before its
// first event: a stream of one JSON-RPC error.
func writeRPCStreamError(w http.ResponseWriter, id json.RawMessage, err error, version string) {
	sw := sse.Open(w, 0)
	defer sw.Close()
	writeRPCErrorEvent(sw, id, err, version)
}

// writeRPCErrorEvent writes an error as a JSON-RPC response frame of a
// stream.
func writeRPCErrorEvent(sw *sse.Writer, id json.RawMessage, err error, version string) {
	e := rpcError(asA2A(err), version)
	b, _ := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: idOrNull(id), Error: &e})
	_ = sw.Event("", -1, b)
}

// rpcEvent writes one stream item as a JSON-RPC response frame.
func (s *Server) rpcEvent(sw *sse.Writer, id json.RawMessage, c codec, e StreamEvent) error {
	b, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: idOrNull(id), Result: c.event(e)})
	if err != nil {
		return err
	}
	return sw.Event("", -1, b)
}
