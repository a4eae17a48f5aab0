package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server"
	"github.com/harnest/harnest/server/servertest"
)

// TestGRPCCalls: A2A's gRPC binding, called with a2a-go's generated gRPC
// client over cleartext HTTP/2 on the server's one port, is counted by
// method and status code (never as an HTTP request) and logged with the
// method, the code, the duration and the user.
func TestGRPCCalls(t *testing.T) {
	ts, logs := serveGRPC(t)
	client := a2apb.NewA2AServiceClient(dialGRPC(t, ts, ownerToken))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	hello := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "secret words"}}}}}
	if _, err := client.SendMessage(ctx, hello); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	stream, err := client.SendStreamingMessage(ctx, hello)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := stream.Recv(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
	}
	if _, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"}); status.Code(err) != codes.NotFound {
		t.Fatalf("GetTask of no task: %v", err)
	}
	anonymous := a2apb.NewA2AServiceClient(dialGRPC(t, ts, ""))
	if _, err := anonymous.GetTask(ctx, &a2apb.GetTaskRequest{Id: "x"}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("GetTask without a token: %v", err)
	}
	raw := dialGRPC(t, ts, ownerToken)
	if err := raw.Invoke(ctx, "/lf.a2a.v1.A2AService/NoSuchMethod", &emptypb.Empty{}, &emptypb.Empty{}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("an unknown method: %v", err)
	}

	const method = "/lf.a2a.v1.A2AService/"
	expect(t, settled(t, ts), map[string]float64{
		"harnest_grpc_requests_total|method=" + method + "SendMessage|code=OK":          1,
		"harnest_grpc_requests_total|method=" + method + "SendStreamingMessage|code=OK": 1,
		"harnest_grpc_requests_total|method=" + method + "GetTask|code=NotFound":        1,
		"harnest_grpc_requests_total|method=" + method + "GetTask|code=Unauthenticated": 1,
		"harnest_grpc_requests_total|method=unknown|code=Unimplemented":                 1,
		"harnest_grpc_requests_total":                                                   5,
		"harnest_grpc_request_duration_seconds|method=" + method + "GetTask":            2,
		"harnest_turns_total|transport=a2a|status=completed":                            2,
		// gRPC calls are not HTTP requests as well.
		"harnest_http_requests_total|route=unmatched": 0,
		"harnest_http_requests_total|method=POST":     0,
	})

	calls := map[string]map[string]any{} // by method and code
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if strings.Contains(line, "secret words") {
			t.Errorf("a log line holds the input: %s", line)
		}
		if m["msg"] == "request" && m["grpcMethod"] != nil {
			calls[m["grpcMethod"].(string)+" "+m["grpcCode"].(string)] = m
		}
	}
	for call, user := range map[string]string{
		method + "SendMessage OK": "alice", method + "SendStreamingMessage OK": "alice",
		method + "GetTask NotFound": "alice", method + "GetTask Unauthenticated": "", "unknown Unimplemented": "alice",
	} {
		line := calls[call]
		if line == nil {
			t.Errorf("no log line for %s: %v", call, calls)
			continue
		}
		if line["user"] != user || line["status"] != float64(200) || line["duration"] == nil || line["requestId"] == nil {
			t.Errorf("log line for %s: %v", call, line)
		}
	}
}

// serveGRPC serves a replica whose card declares the GRPC binding, with
// ServeWith (HTTP/1.1 and cleartext HTTP/2 on one loopback port), until
// the test ends; it returns the server as the owner sees it and its log.
func serveGRPC(t *testing.T) (*servertest.Server, *testutil.SyncBuffer) {
	t.Helper()
	folder, err := config.Load(filepath.Join("..", "..", "examples", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	card := folder.Card
	card["supportedInterfaces"] = []any{map[string]any{"url": addr, "protocolBinding": "GRPC", "protocolVersion": "1.0"}}
	logs := &testutil.SyncBuffer{}
	ts := servertest.Start(t, "", servertest.Setup{Card: card, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Config: withTokens(false).Config})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Srv.ServeWith(ctx, l, server.ServeOptions{Grace: time.Second}) }()
	t.Cleanup(func() {
		stop()
		<-done
	})
	return &servertest.Server{T: t, URL: "http://" + addr, Srv: ts.Srv, Token: ownerToken}, logs
}

// dialGRPC connects to ts's gRPC binding, sending token ("" for none).
func dialGRPC(t *testing.T, ts *servertest.Server, token string) *grpc.ClientConn {
	t.Helper()
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer(token)))
	}
	conn, err := grpc.NewClient(strings.TrimPrefix(ts.URL, "http://"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// bearer sends a token as the authorization metadata of every call.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }
