package a2a_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server"
	"github.com/harnest/harnest/server/servertest"
)

// The gRPC binding, driven by a2a-go v2's gRPC client against a whole
// server that ServeWith serves on its own loopback listener (cleartext
// HTTP/2 or TLS), with a GRPC interface in its card and bearer tokens.

const grpcToken = "tok-grpc-alice-0123456789"

// grpcTarget is a served gRPC interface: where to dial, and how.
type grpcTarget struct {
	base  string // the HTTP(S) base URL (the card)
	addr  string // host:port, the card's GRPC url
	creds credentials.TransportCredentials
	http  *http.Client
}

// startGRPC serves an echo agent whose card declares GRPC at a fresh
// loopback address, over TLS when secure.
func startGRPC(t *testing.T, redisURL string, secure bool, echo config.EchoBackend, tune ...func(*config.Config)) grpcTarget {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	card := testCard("http://"+addr, true)
	// gRPC only, so that the client cannot fall back to another binding.
	card["supportedInterfaces"] = []any{map[string]any{"url": addr, "protocolBinding": "GRPC", "protocolVersion": "1.0"}}
	ts := servertest.Start(t, redisURL, servertest.Setup{
		Card: card,
		Config: func(c *config.Config) {
			c.Spec.Backend.Echo = &echo
			c.Auth.Tokens = []config.Token{{Token: grpcToken, User: "alice"}}
			for _, f := range tune {
				f(c)
			}
		},
	})
	target := grpcTarget{base: "http://" + addr, addr: addr, creds: insecure.NewCredentials(), http: &http.Client{}}
	opts := server.ServeOptions{Grace: time.Second}
	if secure {
		cert, pool := selfSigned(t)
		opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		target.base = "https://" + addr
		target.creds = credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
		target.http = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Srv.ServeWith(ctx, l, opts) }()
	t.Cleanup(func() {
		cancel()
		<-done
		target.http.CloseIdleConnections()
	})
	return target
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// bearer sends a token as the authorization metadata of every call.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }

// client is a2a-go's client from the served card, preferring gRPC;
// token "" sends none.
func (g grpcTarget) client(t *testing.T, token string) *a2aclient.Client {
	t.Helper()
	ctx := grpcCtx(t)
	card, err := agentcard.NewResolver(g.http).Resolve(ctx, g.base)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	if iface := card.SupportedInterfaces[0]; iface.ProtocolBinding != a2a.TransportProtocolGRPC || iface.URL != g.addr {
		t.Fatalf("the card's first interface is %+v, want GRPC at %s", iface, g.addr)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(g.creds)}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer(token)))
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2agrpc.WithGRPCTransport(opts...),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func grpcCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func textOf(parts a2a.ContentParts) string {
	s := ""
	for _, p := range parts {
		s += p.Text()
	}
	return s
}

// TestGRPCEveryMethod runs every method of the service, cleartext and
// over TLS, on both stores.
func TestGRPCEveryMethod(t *testing.T) {
	for _, secure := range []bool{false, true} {
		name := "h2c"
		if secure {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) {
			for _, st := range testutil.Stores(t) {
				t.Run(st.Name, func(t *testing.T) {
					g := startGRPC(t, st.URL, secure, config.EchoBackend{})
					c, ctx := g.client(t, grpcToken), grpcCtx(t)
					checkSendAndStream(t, ctx, c)
				})
			}
		})
	}
}

func checkSendAndStream(t *testing.T, ctx context.Context, c *a2aclient.Client) {
	t.Helper()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	if err != nil {
		t.Fatal(err)
	}
	if msg, ok := res.(*a2a.Message); !ok || textOf(msg.Parts) != "Echo: hello" || msg.ContextID == "" {
		t.Fatalf("blocking send: %#v", res)
	}
	var events []a2a.Event
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("stream me"))}) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	task, ok := events[0].(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("first event %#v", events[0])
	}
	if last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); !ok || last.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("stream ended with %#v", events[len(events)-1])
	}
	one := 1
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &one})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a.TaskStateCompleted || len(got.History) != 1 || textOf(got.Artifacts[0].Parts) != "Echo: stream me" {
		t.Fatalf("GetTask %#v", got)
	}
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: task.ContextID, Status: a2a.TaskStateCompleted})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID || list.NextPageToken != "" {
		t.Fatalf("ListTasks: %v %#v", err, list)
	}
	if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("cancel of a completed task: %v", err)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("subscribe to a completed task: %v", err)
		}
		break
	}
	if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	notPNG := a2a.NewRawPart([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x00")) // says PNG, is not one
	notPNG.MediaType = "image/png"
	if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, notPNG)}); !errors.Is(err, a2a.ErrUnsupportedContentType) {
		t.Errorf("a file that is not what it says: %v", err)
	}
	// Push configs (a2a/push_grpc_test.go delivers them): a loopback URL
	// not listed in server.outbound.allowHosts is refused.
	push := &a2a.PushConfig{TaskID: task.ID, URL: "https://127.0.0.1:1/hook"}
	if _, err := c.CreateTaskPushConfig(ctx, push); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("CreateTaskPushConfig: %v", err)
	}
	if _, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "x"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("GetTaskPushConfig: %v", err)
	}
	if cs, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(cs) != 0 {
		t.Errorf("ListTaskPushConfigs: %v %v", cs, err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "x"}); err != nil {
		t.Errorf("DeleteTaskPushConfig: %v", err)
	}
}

// TestGRPCCancelSubscribeAndInput follows a running task from a
// subscription, cancels it, and answers an approval on its task.
func TestGRPCCancelSubscribeAndInput(t *testing.T) {
	g := startGRPC(t, "", false, config.EchoBackend{DelayMs: 300})
	c, ctx := g.client(t, grpcToken), grpcCtx(t)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("a b c d e f g h")),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("returnImmediately gave %#v", res)
	}
	sub := make(chan []a2a.Event, 1)
	go func() {
		var evs []a2a.Event
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			if err != nil {
				break
			}
			evs = append(evs, ev)
		}
		sub <- evs
	}()
	time.Sleep(200 * time.Millisecond)
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %v %#v", err, canceled)
	}
	evs := <-sub
	if len(evs) == 0 {
		t.Fatal("the subscription saw nothing")
	}
	if last, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); !ok || last.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("subscription ended with %#v", evs[len(evs)-1])
	}

	g = startGRPC(t, "", false, config.EchoBackend{Approval: "send_email"})
	c = g.client(t, grpcToken)
	res, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("mail bob"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok = res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("send: %#v", res)
	}
	res, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("approve"))})
	if err != nil {
		t.Fatal(err)
	}
	if done, ok := res.(*a2a.Task); !ok || done.Status.State != a2a.TaskStateCompleted || done.ID != task.ID {
		t.Fatalf("answer: %#v", res)
	}
}

// TestGRPCRefusesWithoutToken: no token or a wrong one is Unauthenticated;
// another user's task is not found.
func TestGRPCRefusesWithoutToken(t *testing.T) {
	g := startGRPC(t, "", false, config.EchoBackend{})
	ctx := grpcCtx(t)
	for _, token := range []string{"", "wrong-token"} {
		c := g.client(t, token)
		_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
		if !errors.Is(err, a2a.ErrUnauthenticated) {
			t.Errorf("token %q: %v", token, err)
		}
		for _, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}) {
			if !errors.Is(err, a2a.ErrUnauthenticated) {
				t.Errorf("stream with token %q: %v", token, err)
			}
			break
		}
	}
	// The raw status, as any gRPC client sees it.
	conn, err := grpc.NewClient(g.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &emptypb.Empty{}, &emptypb.Empty{})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("raw call without token: %v", err)
	}
}
