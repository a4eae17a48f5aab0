package a2a_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server"
	"github.com/harnest/harnest/server/servertest"
)

// TestPushOverGRPC: a2a-go v2's gRPC client makes, reads, lists and
// deletes push configs, and a send's config gets the task's updates.
func TestPushOverGRPC(t *testing.T) {
	rc := testutil.NewReceiver(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	setup := pushServerSetup(rc)
	setup.Card = testCard("http://"+addr, true)
	setup.Card["supportedInterfaces"] = []any{map[string]any{"url": addr, "protocolBinding": "GRPC", "protocolVersion": "1.0"}}
	setup.PublicURL, setup.A2A = false, nil
	allow := setup.Config
	setup.Config = func(c *config.Config) {
		allow(c)
		c.Auth.Tokens = []config.Token{{Token: grpcToken, User: "alice"}}
	}
	ts := servertest.Start(t, "", setup)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Srv.ServeWith(ctx, l, server.ServeOptions{Grace: time.Second}) }()
	target := grpcTarget{base: "http://" + addr, addr: addr, creds: insecure.NewCredentials(), http: &http.Client{}}
	t.Cleanup(func() {
		cancel()
		<-done
		target.http.CloseIdleConnections()
	})
	c, cctx := target.client(t, grpcToken), grpcCtx(t)

	res, err := c.SendMessage(cctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("grpc push")),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{ID: "g1", URL: rc.URL("/grpc"), Token: "tok-g"}}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("send with a push config: %#v", res)
	}
	got := rc.On("/grpc").Wait(t, "the completed status", untilCompleted)
	if got[0].Header.Get("X-A2A-Notification-Token") != "tok-g" {
		t.Errorf("headers %v", got[0].Header)
	}
	one, err := c.GetTaskPushConfig(cctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "g1"})
	if err != nil || one.URL != rc.URL("/grpc") || one.TaskID != task.ID {
		t.Fatalf("get: %+v %v", one, err)
	}
	if _, err := c.CreateTaskPushConfig(cctx, &a2a.PushConfig{TaskID: task.ID, ID: "g2", URL: rc.URL("/grpc/2")}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if all, err := c.ListTaskPushConfigs(cctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(all) != 2 {
		t.Fatalf("list: %v %v", all, err)
	}
	if err := c.DeleteTaskPushConfig(cctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "g2"}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if all, err := c.ListTaskPushConfigs(cctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(all) != 1 {
		t.Fatalf("list after delete: %v %v", all, err)
	}
}
