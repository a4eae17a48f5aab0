package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/openaiapi"
	"github.com/harnest/harnest/server/servertest"
)

// TestApprovalRoundTrip: the completion says an approval is needed and how
// to give it; the approval, over the neutral endpoint, returns the answer;
// the next call in the same session goes on normally.
func TestApprovalRoundTrip(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(echo(func(e *config.EchoBackend) { e.Approval = "send" }))}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		var head *http.Response
		c, err := client.Chat.Completions.New(t.Context(), userTurn("please send"), option.WithResponseInto(&head))
		if err != nil {
			t.Fatal(err)
		}
		session := head.Header.Get(openaiapi.SessionHeader)
		text := c.Choices[0].Message.Content
		id := idIn(t, approvalID, text)
		for _, want := range []string{"Approval needed", `"send"`, `{"decision":"approve"}`, "Approval ID: " + id, session} {
			if !strings.Contains(text, want) {
				t.Fatalf("the message %q does not say %q", text, want)
			}
		}
		if c.Choices[0].FinishReason != "stop" {
			t.Fatalf("finish reason %q", c.Choices[0].FinishReason)
		}
		reply := ts.Post("/approvals/"+id, `{"decision":"approve"}`)
		servertest.MustStatus(t, reply, http.StatusOK)
		if got := reply.JSON(t); got["status"] != "completed" || got["outputText"] != "Echo: please send" {
			t.Fatalf("approval answer = %s", reply.Body)
		}

		// The next call, streamed, continues the session: it asks again.
		stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("send again"), option.WithHeader(openaiapi.SessionHeader, session))
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		text = acc.Choices[0].Message.Content
		if next := idIn(t, approvalID, text); next == id || acc.Choices[0].FinishReason != "stop" {
			t.Fatalf("second approval %q (first %q), finish %q", next, id, acc.Choices[0].FinishReason)
		}
		if got := transcript(t, ts, session); len(got) != 2 || got[1] != "assistant: Echo: please send" {
			t.Fatalf("transcript = %q", got)
		}
	})
}

func TestClientToolRoundTrip(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(echo(func(e *config.EchoBackend) { e.ClientTool = "get_location" }))}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		c, err := client.Chat.Completions.New(t.Context(), userTurn("where am I"))
		if err != nil {
			t.Fatal(err)
		}
		text := c.Choices[0].Message.Content
		id := idIn(t, clientToolID, text)
		for _, want := range []string{"Client tool needed", `"get_location"`, `{"input":"where am I"}`, `{"output":`} {
			if !strings.Contains(text, want) {
				t.Fatalf("the message %q does not say %q", text, want)
			}
		}
		reply := ts.Post("/client-tools/"+id, `{"output":"Oslo"}`)
		servertest.MustStatus(t, reply, http.StatusOK)
		if got := reply.JSON(t); got["outputText"] != "Echo: where am I (get_location said: Oslo)" {
			t.Fatalf("client tool answer = %s", reply.Body)
		}
	})
}
