package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPBehindRoundRobin: two harnest processes on one redis-server behind
// a load balancer that sends every request to the other one in turn; the
// official Go SDK client lists, calls with progress, approves by
// elicitation and cancels, whichever process each request reaches.
func TestMCPBehindRoundRobin(t *testing.T) {
	redisURL := realRedis(t)
	dir := agentFolder(t, "approval: send, delayMs: 150", "server:\n  mcp: true\n"+prefixed(t))
	replicas := []*harnest{startHarnest(t, dir, nil, "--redis-url", redisURL), startHarnest(t, dir, nil, "--redis-url", redisURL)}
	var proxies []*httputil.ReverseProxy
	for _, h := range replicas {
		target, err := url.Parse(h.URL)
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.FlushInterval = -1
		proxies = append(proxies, p)
	}
	var next atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = ""
		// Full duplex: the proxy streams the request body upstream while
		// the upstream's answer streams back. Without it net/http, once the
		// answer's headers are written, drains and closes a request body
		// that the proxy's transport has not yet read to its end, and the
		// transport then drops the upstream connection mid-stream (seen as
		// "request terminated without response" on a loaded machine).
		_ = http.NewResponseController(w).EnableFullDuplex()
		proxies[next.Add(1)%int64(len(proxies))].ServeHTTP(w, r)
	}))
	defer lb.Close()

	progress := make(chan *mcp.ProgressNotificationParams, 256)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lb.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("initialize through the balancer: %v", err)
	}
	defer cs.Close()

	for range 2 {
		if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) != 1 {
			t.Fatalf("tools/list: %v %+v", err, tools)
		}
	}
	params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "one two three"}}
	params.SetProgressToken("p")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("call with progress: %v %+v", err, res)
	}
	var streamed strings.Builder
	for streamed.String() != "Echo: one two three" {
		select {
		case p := <-progress:
			streamed.WriteString(p.Message)
		case <-ctx.Done():
			t.Fatalf("progress %q, want the answer", streamed.String())
		}
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "send it"}})
	if err != nil || res.IsError {
		t.Fatalf("call approved by elicitation: %v %+v", err, res)
	}
	if out, _ := res.StructuredContent.(map[string]any); out["status"] != "completed" || out["text"] != "Echo: send it" {
		t.Fatalf("approved call: %+v", res.StructuredContent)
	}

	callCtx, cancelCall := context.WithCancel(ctx)
	params = &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "a long story told slowly to the very end"}}
	params.SetProgressToken("c")
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, params)
		errc <- err
	}()
	var first *mcp.ProgressNotificationParams
	for first == nil {
		select {
		case p := <-progress:
			if p.ProgressToken == "c" {
				first = p
			}
		case <-ctx.Done():
			t.Fatal("no progress from the call to cancel")
		}
	}
	cancelCall()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call returned a result")
	}
	path := "/responses/" + first.Meta["harnest.dev/responseId"].(string) + "?sessionId=" + first.Meta["harnest.dev/sessionId"].(string)
	for {
		r := replicas[1].get(t, path)
		status := r.JSON(t)["status"]
		if status == "cancelled" {
			break
		}
		if status != "in_progress" {
			t.Fatalf("receipt %s, want cancelled", r.Body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("still %v, want cancelled", status)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
