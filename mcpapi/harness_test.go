package mcpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// The tokens of a server with auth: alice and bob share nothing but the
// endpoint.
const (
	aliceToken = "token-alice-0123456789"
	bobToken   = "token-bob-0123456789"
)

// setup describes a server under test: the hello folder (the echo agent)
// with /mcp on.
type setup struct {
	echo   config.EchoBackend // the echo backend's options
	tokens bool               // require alice's or bob's token
}

func (s setup) serverSetup() servertest.Setup {
	return servertest.Setup{Config: func(c *config.Config) {
		c.Server.MCP = true
		echo := s.echo
		c.Spec.Backend.Echo = &echo
		if s.tokens {
			c.Auth.Tokens = []config.Token{{Token: aliceToken, User: "alice"}, {Token: bobToken, User: "bob"}}
		}
	}}
}

// eachStore runs fn against a server on the in-process store and on a
// real redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *servertest.Server)) {
	servertest.EachStore(t, s.serverSetup(), fn)
}

// bearer sends a token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// client is what a test's MCP client does besides calling: how it answers
// elicitations (nil: it declares none) and where progress goes.
type client struct {
	token    string
	elicit   func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	progress chan<- *mcp.ProgressNotificationParams
}

// connect initialises an MCP session with the server's /mcp, closed when
// the test ends.
func connect(t *testing.T, ts *servertest.Server, c client) *mcp.ClientSession {
	t.Helper()
	cs, err := dial(t, ts, c)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	return cs
}

// dial is connect that returns the error.
func dial(t *testing.T, ts *servertest.Server, c client) (*mcp.ClientSession, error) {
	t.Helper()
	opts := &mcp.ClientOptions{ElicitationHandler: c.elicit}
	if c.progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case c.progress <- req.Params:
			default: // a full channel drops it; the test reads what it needs
			}
		}
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "harnest-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{c.token}}}
	cs, err := mc.Connect(ctx, transport, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// callTool calls the agent's tool (hello) with the arguments.
func callTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: args})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	return res
}

// output is the tool's structured content.
type output struct {
	Text           string `json:"text"`
	SessionID      string `json:"sessionId"`
	ResponseID     string `json:"responseId"`
	Status         string `json:"status"`
	RequiredAction *struct {
		Type      string         `json:"type"`
		ID        string         `json:"id"`
		Action    string         `json:"action"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Answer    struct {
			Method, Path, Body string
		} `json:"answer"`
	} `json:"requiredAction"`
}

// structured decodes a result's structured content; it fails the test for
// an error result.
func structured(t *testing.T, res *mcp.CallToolResult) output {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out output
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

// text is a result's first text content.
func text(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}
