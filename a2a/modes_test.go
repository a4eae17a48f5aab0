package a2a_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/harnest/harnest/config"
)

// TestInputModesAreEnforced: a message with a part of a media type the
// card does not take (the test card takes text/plain, and its skill JSON,
// images and octet streams) is refused with ContentTypeNotSupported on
// every HTTP binding and version, and nothing is stored: no task, no
// session. Parts of the types it takes go through.
func TestInputModesAreEnforced(t *testing.T) {
	h := newHarness(t, setup{})
	pdf10 := `{"url":"https://example.com/a.pdf","mediaType":"application/pdf","filename":"a.pdf"}`
	pdfBytes10 := `{"raw":"JVBERi0=","mediaType":"application/pdf","filename":"a.pdf"}`
	msg10 := func(part string) string {
		return `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"read this"},` + part + `]}}`
	}
	pdf03 := `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"read this"},{"kind":"file","file":{"uri":"https://example.com/a.pdf","mimeType":"application/pdf"}}]}}`
	pdfRest03 := `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"read this"},{"file":{"fileWithUri":"https://example.com/a.pdf","mimeType":"application/pdf"}}]}}`
	for _, c := range []errorPath{
		{name: "1.0 SendMessage", method: "POST", path: "/a2a", body: rpcBody("SendMessage", msg10(pdf10)), headers: []string{"A2A-Version", "1.0"}, code: -32005, reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "1.0 SendMessage with bytes", method: "POST", path: "/a2a", body: rpcBody("SendMessage", msg10(pdfBytes10)), headers: []string{"A2A-Version", "1.0"}, code: -32005, reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "1.0 SendStreamingMessage", method: "POST", path: "/a2a", body: rpcBody("SendStreamingMessage", msg10(pdf10)), headers: []string{"A2A-Version", "1.0"}, stream: true, code: -32005, reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "0.3 message/send", method: "POST", path: "/a2a", body: rpcBody("message/send", pdf03), code: -32005},
		{name: "0.3 message/stream", method: "POST", path: "/a2a", body: rpcBody("message/stream", pdf03), stream: true, code: -32005},
		{name: "REST message:send", method: "POST", path: "/rest/message:send", body: msg10(pdf10), http: 415, status: "INVALID_ARGUMENT", reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "REST message:send with bytes", method: "POST", path: "/rest/message:send", body: msg10(pdfBytes10), http: 415, status: "INVALID_ARGUMENT", reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "REST message:stream", method: "POST", path: "/rest/message:stream", body: msg10(pdf10), http: 415, status: "INVALID_ARGUMENT", reason: "CONTENT_TYPE_NOT_SUPPORTED"},
		{name: "REST 0.3 message:send", method: "POST", path: "/rest/v1/message:send", body: pdfRest03, http: 415, code: -32005},
		{name: "REST 0.3 message:stream", method: "POST", path: "/rest/v1/message:stream", body: pdfRest03, http: 415, code: -32005},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := h.errorOf(t, c)
			if !strings.Contains(got.message, "application/pdf") || !strings.Contains(got.message, "text/plain") {
				t.Errorf("message %q does not say which type was refused and which are taken", got.message)
			}
		})
	}
	list := h.rpc("1.0", "ListTasks", map[string]any{}).JSON(t)
	if tasks, _ := dig(list, "result", "tasks").([]any); len(tasks) != 0 {
		t.Fatalf("refused messages made tasks: %v", list)
	}
	if r := h.Get("/sessions"); r.Status != 200 || len(dig(r.JSON(t), "sessions").([]any)) != 0 {
		t.Fatalf("refused messages made sessions: %d %s", r.Status, r.Body)
	}

	// Types the card takes: an image (image/*), JSON data, and text
	// whose media type has parameters.
	ok := msg10(`{"url":"https://example.com/a.png","mediaType":"IMAGE/PNG"},{"data":{"k":1}},{"text":"x","mediaType":"text/plain; charset=utf-8"}`)
	r := h.do("POST", "/a2a", rpcBody("SendMessage", ok), "A2A-Version", "1.0").JSON(t)
	if dig(r, "error") != nil || str(r, "result", "task", "status", "state") != stateCompleted && dig(r, "result", "message") == nil {
		t.Fatalf("a message of taken types: %v", r)
	}
}

// TestInputModesOverGRPC: a2a-go v2's gRPC client gets
// ErrUnsupportedContentType (INVALID_ARGUMENT) for a part the card does
// not take.
func TestInputModesOverGRPC(t *testing.T) {
	g := startGRPC(t, "", false, config.EchoBackend{})
	c, ctx := g.client(t, grpcToken), grpcCtx(t)
	_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser,
		a2a.NewTextPart("read this"), a2a.NewFileURLPart("https://example.com/a.pdf", "application/pdf"))})
	if !errors.Is(err, a2a.ErrUnsupportedContentType) || !strings.Contains(err.Error(), "application/pdf") {
		t.Fatalf("a pdf over gRPC: %v, want ErrUnsupportedContentType", err)
	}
	// The raw status, as any gRPC client sees it.
	_, err = rawGRPC(t, g).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Url{Url: "https://example.com/a.pdf"}, MediaType: "application/pdf"}}}})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("a pdf over raw gRPC: %v, want INVALID_ARGUMENT", err)
	}
	for _, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser,
		a2a.NewFileURLPart("https://example.com/a.pdf", "application/pdf"))}) {
		if !errors.Is(err, a2a.ErrUnsupportedContentType) {
			t.Fatalf("a streamed pdf over gRPC: %v, want ErrUnsupportedContentType", err)
		}
		break
	}
}

// TestQuotaRefusalIsNotACrash: a send past the user's turns of the day is
// told from an internal error on every binding: JSON-RPC -32000 (both
// versions, a stream's error event too) with RATE_LIMITED and a RetryInfo,
// HTTP+JSON 429 RESOURCE_EXHAUSTED with Retry-After, gRPC
// RESOURCE_EXHAUSTED with a RetryInfo.
func TestQuotaRefusalIsNotACrash(t *testing.T) {
	oneTurn := func(c *config.Config) { c.Server.Limits.TurnsPerDay = 1 }
	h := newHarness(t, setup{config: oneTurn})
	if r := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("the one turn")}).JSON(t); dig(r, "error") != nil {
		t.Fatalf("the day's one turn: %v", r)
	}
	send10 := `{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"again"}]}}`
	for _, c := range []errorPath{
		{name: "1.0 SendMessage", method: "POST", path: "/a2a", body: rpcBody("SendMessage", send10), headers: []string{"A2A-Version", "1.0"}, code: -32000, reason: "RATE_LIMITED"},
		{name: "1.0 SendStreamingMessage", method: "POST", path: "/a2a", body: rpcBody("SendStreamingMessage", send10), headers: []string{"A2A-Version", "1.0"}, stream: true, code: -32000, reason: "RATE_LIMITED"},
		{name: "0.3 message/send", method: "POST", path: "/a2a", body: rpcBody("message/send", `{"message":{"kind":"message","messageId":"m3","role":"user","parts":[{"kind":"text","text":"again"}]}}`), code: -32000},
		{name: "REST message:send", method: "POST", path: "/rest/message:send", body: send10, http: 429, status: "RESOURCE_EXHAUSTED", reason: "RATE_LIMITED"},
		{name: "REST 0.3 message:send", method: "POST", path: "/rest/v1/message:send", body: `{"message":{"messageId":"m4","role":"ROLE_USER","content":[{"text":"again"}]}}`, http: 429, code: -32000},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := h.errorOf(t, c)
			if c.reason != "" && !got.retryInfo {
				t.Errorf("no google.rpc.RetryInfo in %v", got.details)
			}
			if c.http != 0 && got.retryAfter == "" {
				t.Error("no Retry-After header")
			}
		})
	}

	g := startGRPC(t, "", false, config.EchoBackend{}, oneTurn)
	c, ctx := rawGRPC(t, g), grpcCtx(t)
	say := func(text string) error {
		_, err := c.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: text, Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}}})
		return err
	}
	if err := say("the one turn"); err != nil {
		t.Fatal(err)
	}
	st, _ := status.FromError(say("again"))
	var retry bool
	for _, d := range st.Details() {
		_, isRetry := d.(*errdetails.RetryInfo)
		retry = retry || isRetry
	}
	if st.Code() != codes.ResourceExhausted || !retry {
		t.Fatalf("past the quota over gRPC: %v %q (details %v), want RESOURCE_EXHAUSTED with RetryInfo", st.Code(), st.Message(), st.Details())
	}
}

// rawGRPC is the generated A2A client of a served gRPC interface, with
// the test token: the statuses as any gRPC client sees them.
func rawGRPC(t *testing.T, g grpcTarget) a2apb.A2AServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(g.addr, grpc.WithTransportCredentials(g.creds), grpc.WithPerRPCCredentials(bearer(grpcToken)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return a2apb.NewA2AServiceClient(conn)
}
