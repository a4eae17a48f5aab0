package mcpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/server/servertest"
)

// The echo agent as a test double: one that asks for an approval, one that
// asks the client for a tool, one that takes its time.
var (
	echoApproval   = config.EchoBackend{Approval: "send"}
	echoClientTool = config.EchoBackend{ClientTool: "get_location"}
	echoSlow       = config.EchoBackend{DelayMs: 400}
)

// decide answers every elicitation with the decision, and records the
// questions.
func decide(decision string, asked chan<- *mcp.ElicitParams) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params
		if decision == "decline" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
	}
}

// TestApprovalByElicitation: a client that declared elicitation is asked to
// approve; approving returns the final answer, declining denies.
func TestApprovalByElicitation(t *testing.T) {
	eachStore(t, setup{echo: echoApproval}, func(t *testing.T, ts *servertest.Server) {
		asked := make(chan *mcp.ElicitParams, 4)
		cs := connect(t, ts, client{elicit: decide("approve", asked)})
		out := structured(t, callTool(t, cs, map[string]any{"message": "mail it"}))
		if out.Status != "completed" || out.Text != "Echo: mail it" {
			t.Fatalf("approved: %+v", out)
		}
		q := <-asked
		if !strings.Contains(q.Message, "send") || !strings.Contains(q.Message, `"input":"mail it"`) {
			t.Errorf("the question %q does not show the action and its arguments", q.Message)
		}
		if q.Meta[mcpapi.MetaResponseID] != out.ResponseID || q.Meta[mcpapi.MetaSessionID] != out.SessionID {
			t.Errorf("elicitation _meta %v, want response %s", q.Meta, out.ResponseID)
		}

		// The resumed response's text deltas go out as progress too.
		progress := make(chan *mcp.ProgressNotificationParams, 64)
		watching := connect(t, ts, client{elicit: decide("approve", asked), progress: progress})
		params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "mail it again"}}
		params.SetProgressToken(42)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := watching.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		<-asked
		answer := structured(t, res).Text
		var got strings.Builder
		for got.Len() < len(answer) {
			select {
			case p := <-progress:
				got.WriteString(p.Message)
			case <-ctx.Done():
				t.Fatalf("progress %q, want %q", got.String(), answer)
			}
		}
		if got.String() != answer {
			t.Errorf("progress %q, want %q", got.String(), answer)
		}

		declining := connect(t, ts, client{elicit: decide("decline", make(chan *mcp.ElicitParams, 4))})
		res = callTool(t, declining, map[string]any{"message": "mail it"})
		if denied := structured(t, res); denied.Status != "denied" || !strings.Contains(text(res), "denied") {
			t.Errorf("declined: %+v, %q", denied, text(res))
		}
	})
}

// TestApprovalOverHTTP: without elicitation the call ends requires_action,
// says how to answer, and POST /approvals/{id} returns the answer.
func TestApprovalOverHTTP(t *testing.T) {
	eachStore(t, setup{echo: echoApproval, tokens: true}, func(t *testing.T, ts *servertest.Server) {
		cs := connect(t, ts, client{token: aliceToken})
		res := callTool(t, cs, map[string]any{"message": "mail it"})
		out := structured(t, res)
		a := out.RequiredAction
		if out.Status != "requires_action" || a == nil || a.Type != "human_approval" || a.Action != "send" {
			t.Fatalf("without elicitation: %+v", out)
		}
		if a.Answer.Path != "/approvals/"+a.ID || a.Arguments["input"] != "mail it" || !strings.Contains(text(res), "POST /approvals/"+a.ID) {
			t.Fatalf("how to answer: %+v, %q", a, text(res))
		}
		servertest.MustStatus(t, ts.As(bobToken).Post(a.Answer.Path, `{"decision":"approve"}`), http.StatusNotFound)
		r := ts.As(aliceToken).Post(a.Answer.Path, `{"decision":"approve"}`)
		servertest.MustStatus(t, r, http.StatusOK)
		body := r.JSON(t)
		if body["status"] != "completed" || body["outputText"] != "Echo: mail it" || body["id"] != out.ResponseID {
			t.Errorf("answer over HTTP: %s", r.Body)
		}
	})
}

// TestClientToolByElicitation: the client types the tool's output as JSON;
// the agent's answer holds it. Without elicitation, the call says how to
// answer over HTTP.
func TestClientToolByElicitation(t *testing.T) {
	eachStore(t, setup{echo: echoClientTool}, func(t *testing.T, ts *servertest.Server) {
		cs := connect(t, ts, client{elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "get_location") {
				t.Errorf("question %q", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"output": `{"city": "Paris"}`}}, nil
		}})
		out := structured(t, callTool(t, cs, map[string]any{"message": "where am I"}))
		if out.Status != "completed" || out.Text != `Echo: where am I (get_location said: {"city":"Paris"})` {
			t.Fatalf("client tool by elicitation: %+v", out)
		}

		plain := connect(t, ts, client{})
		res := structured(t, callTool(t, plain, map[string]any{"message": "where am I"}))
		if res.RequiredAction == nil || res.RequiredAction.Type != "client_tool" || res.RequiredAction.Name != "get_location" {
			t.Fatalf("without elicitation: %+v", res)
		}
		r := ts.Post(res.RequiredAction.Answer.Path, `{"output":"Lyon"}`)
		servertest.MustStatus(t, r, http.StatusOK)
		if got := r.JSON(t)["outputText"]; got != "Echo: where am I (get_location said: Lyon)" {
			t.Errorf("answer over HTTP: %s", r.Body)
		}
	})
}

// TestCancelWhileAsking: a client that cancels its call while it is asked
// to approve cancels the response.
func TestCancelWhileAsking(t *testing.T) {
	eachStore(t, setup{echo: echoApproval}, func(t *testing.T, ts *servertest.Server) {
		asked := make(chan mcp.Meta, 1)
		release := make(chan struct{}) // the person never answers; the test lets go in the end
		defer close(release)
		cs := connect(t, ts, client{elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Meta
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("no answer")
		}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		callCtx, cancelCall := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "never mind"}})
			errc <- err
		}()
		var meta mcp.Meta
		select {
		case meta = <-asked:
		case <-ctx.Done():
			t.Fatal("never asked")
		}
		cancelCall()
		if err := <-errc; err == nil {
			t.Fatal("a cancelled call returned a result")
		}
		waitStatus(ctx, t, ts, meta, "cancelled")
	})
}

// TestCancelWhileStreaming: a client that cancels its call while the
// answer streams cancels the response.
func TestCancelWhileStreaming(t *testing.T) {
	eachStore(t, setup{echo: echoSlow}, func(t *testing.T, ts *servertest.Server) {
		progress := make(chan *mcp.ProgressNotificationParams, 64)
		cs := connect(t, ts, client{progress: progress})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		callCtx, cancelCall := context.WithCancel(ctx)
		params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "a long story told slowly"}}
		params.SetProgressToken("story")
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(callCtx, params)
			errc <- err
		}()
		var first *mcp.ProgressNotificationParams
		select {
		case first = <-progress:
		case <-ctx.Done():
			t.Fatal("no progress")
		}
		cancelCall()
		if err := <-errc; err == nil {
			t.Fatal("a cancelled call returned a result")
		}
		waitStatus(ctx, t, ts, first.Meta, "cancelled")
	})
}

// waitStatus polls the receipt of the response that meta names until it
// has the status.
func waitStatus(ctx context.Context, t *testing.T, ts *servertest.Server, meta mcp.Meta, want string) {
	t.Helper()
	responseID, _ := meta[mcpapi.MetaResponseID].(string)
	sessionID, _ := meta[mcpapi.MetaSessionID].(string)
	path := "/responses/" + responseID + "?sessionId=" + sessionID
	for {
		r := ts.Get(path)
		servertest.MustStatus(t, r, http.StatusOK)
		status := r.JSON(t)["status"]
		if status == want {
			return
		}
		if status != "requires_action" && status != "in_progress" {
			t.Fatalf("receipt %s, want %s", r.Body, want)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("receipt still %s, want %s", status, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
