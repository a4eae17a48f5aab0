package live_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

var (
	idPattern   = regexp.MustCompile(`\b(resp_|approval_|client_tool_|msg_|call_)?[0-9a-f]{32}\b`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00`)
)

// normalize replaces generated IDs by their order of first appearance
// (resp_1, approval_1, session 1 …) and timestamps by <time>.
func normalize(s string) string {
	seen := map[string]string{}
	counts := map[string]int{}
	s = idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := seen[id]; ok {
			return n
		}
		prefix := idPattern.FindStringSubmatch(id)[1]
		counts[prefix]++
		name := prefix + strconv.Itoa(counts[prefix])
		if prefix == "" {
			name = "session_" + strconv.Itoa(counts[prefix])
		}
		seen[id] = name
		return name
	})
	return timePattern.ReplaceAllString(s, "<time>")
}

// transcript records a conversation: "> " what the client sent, "< " what
// the server sent, "# " notes.
type transcript struct {
	c     *client
	lines []string
}

func (tr *transcript) send(frame string) {
	tr.c.send(frame)
	tr.lines = append(tr.lines, "> "+frame)
}

// until receives frames up to the first of the given type.
func (tr *transcript) until(typ string) []map[string]any {
	var frames []map[string]any
	for i := 0; i < 100; i++ {
		raw := tr.c.nextRaw()
		tr.lines = append(tr.lines, "< "+string(raw))
		f := map[string]any{}
		_ = json.Unmarshal(raw, &f)
		frames = append(frames, f)
		if f["type"] == typ {
			return frames
		}
	}
	tr.c.t.Fatalf("no %s frame", typ)
	return nil
}

func (tr *transcript) note(s string) { tr.lines = append(tr.lines, "# "+s) }

// A whole conversation over /Live: a turn, an approval, a client tool, a
// cancel, an idle error, a protocol error, and the close.
func TestGoldenConversation(t *testing.T) {
	agent := newTestAgent()
	ts := newLiveServer(t, "", setup{Agent: agent})
	c := ts.mustDial()
	tr := &transcript{c: c}

	tr.send(`{"type":"connect"}`)
	tr.until("session.connected")

	tr.send(`{"type":"response.create","input":"hello","requestId":"r1","metadata":{"client":"golden"}}`)
	tr.until("response.completed")

	tr.send(`{"type":"response.create","input":"both","requestId":"r2"}`)
	frames := tr.until("response.completed")
	rid, aid := frames[0]["responseId"].(string), frames[2]["approval"].(map[string]any)["id"].(string)
	tr.send(`{"type":"approval.decision","responseId":"` + rid + `","approvalId":"` + aid + `","decision":"approve"}`)
	frames = tr.until("client_tool.requested")
	tid := frames[len(frames)-1]["clientTool"].(map[string]any)["id"].(string)
	tr.send(`{"type":"client_tool.result","requestId":"` + tid + `","output":"Oslo"}`)
	tr.until("response.completed")

	tr.send(`{"type":"response.create","input":"block","requestId":"r3"}`)
	frames = tr.until("response.text.delta")
	<-agent.started
	tr.send(`{"type":"response.cancel","responseId":"` + frames[0]["responseId"].(string) + `"}`)
	tr.until("response.completed")

	tr.send(`{"type":"response.create","input":""}`)
	tr.until("error")

	tr.send(`{"type":"response.create","input":"block","requestId":"r4"}`)
	tr.until("response.text.delta")
	<-agent.started
	tr.send(`{"type":"response.create","input":"too soon"}`)
	tr.until("error")

	tr.send(`{"type":"session.close"}`)
	code, reason := c.closed()
	tr.note("closed " + strconv.Itoa(code) + " " + strconv.Quote(reason))

	got := normalize(strings.Join(tr.lines, "\n") + "\n")
	path := filepath.Join("testdata", "conversation.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./live -run Golden -update)", err)
	}
	if got != string(want) {
		t.Fatalf("transcript differs from %s (go test ./live -run Golden -update rewrites it):\n%s", path, got)
	}
}
