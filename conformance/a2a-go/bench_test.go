package conformance

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/harnest/harnest/internal/testutil"
)

// BenchmarkSendMessage measures blocking JSON-RPC SendMessage requests per
// second, with one load client (b.RunParallel over keep-alive
// connections), against harnest's echo agent and a2a-go v2.3.1 echo
// servers on the same machine in the same run: one that answers with a
// message (as harnest does), one that makes a task (submitted, working, an
// artifact, completed) in its in-memory store. harnest records the turn in
// its store (embedded here) as every transport does; a2a-go keeps nothing
// for a message. The a2a-js target is ../a2a-js/echo-server.mjs, an
// @a2a-js/sdk 1.3.0 express server answering with a message, run by node
// in its own process (skipped without node or ../a2a-js/node_modules,
// unless HARNEST_REQUIRE_NODE=1). Run: go test -run '^$' -bench SendMessage
// -benchtime 5s.
func BenchmarkSendMessage(b *testing.B) {
	jsURL, jsSkip := startEchoJS(b)
	targets := []struct{ name, url, skip string }{
		{"harnest", startHarnest(b, "{}").URL + "/a2a", ""},
		{"a2a-go-v2", startEchoV2(b, echoV2{}) + "/rpc", ""},
		{"a2a-go-v2-task", startEchoV2(b, taskEchoV2{}) + "/rpc", ""},
		{"a2a-js-1.3.0", jsURL, jsSkip},
	}
	body := []byte(`{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`)
	for _, target := range targets {
		b.Run(target.name, func(b *testing.B) {
			if target.skip != "" {
				b.Skip(target.skip)
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxIdleConns: 256}}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodPost, target.url, bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", "1.0")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					out, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || !bytes.Contains(out, []byte("Echo: hello")) && !bytes.Contains(out, []byte(`"hello"`)) {
						b.Errorf("reply %d %s", resp.StatusCode, out)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// echoV2 is an a2a-go v2 agent that answers every message with a message
// repeating its text.
type echoV2 struct{}

func (echoV2) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text strings.Builder
		for _, p := range ec.Message.Parts {
			text.WriteString(p.Text())
		}
		reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Echo: "+text.String()))
		reply.ContextID = ec.ContextID
		yield(reply, nil)
	}
}

func (echoV2) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// taskEchoV2 answers with a completed task, as the a2a-go examples do.
type taskEchoV2 struct{ echoV2 }

func (taskEchoV2) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text strings.Builder
		for _, p := range ec.Message.Parts {
			text.WriteString(p.Text())
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("Echo: "+text.String())), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func startEchoV2(b testing.TB, agent a2asrv.AgentExecutor) string {
	mux := http.NewServeMux()
	h := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agent))
	mux.Handle("/rpc", h)
	ts := httptest.NewServer(mux)
	b.Cleanup(ts.Close)
	return ts.URL
}

// startEchoJS runs ../a2a-js/echo-server.mjs on a free loopback port and
// returns its JSON-RPC URL, or a reason to skip when node or the packages
// are missing (a failure instead when HARNEST_REQUIRE_NODE=1). The process
// is killed when the benchmark ends.
func startEchoJS(b *testing.B) (url, skip string) {
	b.Helper()
	dir := testutil.A2AJSDir()
	node, missing := testutil.FindNode(dir, "@a2a-js/sdk", "express")
	if missing != "" {
		if os.Getenv(testutil.RequireNodeEnv) == "1" {
			b.Fatalf("%s=1 but %s", testutil.RequireNodeEnv, missing)
		}
		return "", missing
	}
	return "http://127.0.0.1:" + testutil.StartNodeServer(b, node, dir, nil, "echo-server.mjs", "0") + "/rpc", ""
}
