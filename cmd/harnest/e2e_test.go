package main

// End-to-end tests of the real harnest binary: it is built once by
// TestMain, then every test starts it as a child process on a free loopback
// port and talks to it over HTTP, as a user would.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// harnestBin is the binary under test, built by TestMain.
var harnestBin string

// helloDir is the example agent the quick start serves.
const helloDir = "../../examples/hello"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "harnest-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		os.Exit(1)
	}
	harnestBin = filepath.Join(dir, "harnest")
	build := exec.Command("go", "build", "-tags", "e2eknobs", "-o", harnestBin, ".") // knobs_e2e.go
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build failed: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	testutil.StopRealRedis()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// Child processes

// lockedBuffer is a log sink the test reads while the server writes.
type lockedBuffer = testutil.SyncBuffer

// harnest is one running "harnest serve".
type harnest struct {
	t      *testing.T
	URL    string
	cmd    *exec.Cmd
	stdout *lockedBuffer
	stderr *lockedBuffer
	exited chan struct{} // closed when the process has been waited for
	client *http.Client  // its own connection pool, closed on stop

	stopOnce sync.Once
	code     int
	took     time.Duration // from SIGTERM to exit
}

// runCmd runs a short harnest command and returns its exit code and output.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harnestBin, args...)
	cmd.Env = childEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("harnest %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// childEnv is the test's environment without anything that would make the
// child pick a store or token the test did not ask for, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HARNEST_REDIS_URL=") || strings.HasPrefix(kv, "E2E_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// startHarnest runs "harnest serve folder --host 127.0.0.1 --port <free>
// args..." and waits until GET /healthz answers. The process is always
// stopped when the test ends.
func startHarnest(t *testing.T, folder string, env []string, args ...string) *harnest {
	t.Helper()
	for attempt := 1; ; attempt++ {
		port, err := testutil.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		h := launch(t, folder, port, env, args)
		err = h.waitHealthy(10 * time.Second)
		if err == nil {
			return h
		}
		h.stop()
		// Another process may have taken the free port in between.
		if attempt < 3 && strings.Contains(h.stderr.String(), "cannot listen") {
			continue
		}
		t.Fatalf("harnest serve did not become healthy: %v\nstdout:\n%s\nstderr:\n%s", err, h.stdout, h.stderr)
	}
}

func launch(t *testing.T, folder string, port int, env []string, args []string) *harnest {
	t.Helper()
	argv := append([]string{"serve", folder, "--host", "127.0.0.1", "--port", strconv.Itoa(port)}, args...)
	cmd := exec.Command(harnestBin, argv...)
	cmd.Env = childEnv(env...)
	h := &harnest{
		t: t, URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd,
		stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{}),
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
	}
	cmd.Stdout, cmd.Stderr = h.stdout, h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start harnest: %v", err)
	}
	go func() {
		_ = cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("harnest %v\nstdout:\n%s\nstderr:\n%s", argv, h.stdout, h.stderr)
		}
	})
	return h
}

func (h *harnest) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-h.exited:
			return fmt.Errorf("exited with code %d", h.cmd.ProcessState.ExitCode())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", "e2e-healthz")
		resp, err := h.client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		cancel()
		// Only this process's answer counts: its banner, printed once it
		// listens, names its address. Another process that took the free
		// port first would answer /healthz too.
		if err == nil && resp.StatusCode == http.StatusOK && strings.Contains(h.stdout.String(), strings.TrimPrefix(strings.TrimPrefix(h.URL, "http://"), "https://")) {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			return fmt.Errorf("GET /healthz within %v: %w", limit, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig to the process unless it has exited.
func (h *harnest) signal(sig os.Signal) {
	select {
	case <-h.exited:
	default:
		_ = h.cmd.Process.Signal(sig)
	}
}

// stop sends SIGTERM, waits up to 10 s, then kills. It returns the exit
// code (-1 when killed by a signal) and is safe to call more than once.
func (h *harnest) stop() int {
	h.stopOnce.Do(func() {
		start := time.Now()
		h.signal(syscall.SIGTERM)
		h.waitExit(10 * time.Second)
		h.took = time.Since(start)
		h.client.CloseIdleConnections()
		h.code = h.cmd.ProcessState.ExitCode()
	})
	return h.code
}

// waitExit waits for the process to end on its own for up to limit, then
// kills it.
func (h *harnest) waitExit(limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-h.exited:
	case <-timer.C:
		h.t.Errorf("harnest did not exit within %v of SIGTERM; killing it", limit)
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
}

// mustExitAfterSignal waits for a server that was already signalled (a
// second signal would end it at once) and fails unless it exits 0.
func (h *harnest) mustExitAfterSignal(t *testing.T) {
	t.Helper()
	h.stopOnce.Do(func() {
		h.waitExit(10 * time.Second)
		h.client.CloseIdleConnections()
		h.code = h.cmd.ProcessState.ExitCode()
	})
	if h.code != 0 {
		t.Fatalf("harnest exited %d after SIGTERM, want 0\nstderr:\n%s", h.code, h.stderr)
	}
}

// mustStop stops the server and fails unless it exits 0.
func (h *harnest) mustStop(t *testing.T) {
	t.Helper()
	if code := h.stop(); code != 0 {
		t.Fatalf("harnest exited %d after SIGTERM, want 0\nstderr:\n%s", code, h.stderr)
	}
}

// waitOutput waits until the child's stdout contains s.
func (h *harnest) waitOutput(t *testing.T, s string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := h.stdout.String()
		if strings.Contains(out, s) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("stdout never contained %q:\n%s", s, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// HTTP

// reply is a finished HTTP exchange.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r reply) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

func mustStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// do sends a request; headers are key, value pairs. A body is sent as
// application/json.
func (h *harnest) do(t *testing.T, method, path, body string, headers ...string) reply {
	t.Helper()
	r, err := h.exchange(30*time.Second, method, path, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// exchange sends a request and reads its answer within limit, without
// failing the test (load goroutines use it too).
func (h *harnest) exchange(limit time.Duration, method, path, body string, headers ...string) (reply, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.URL+path, rd)
	if err != nil {
		return reply{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("read body: %w", err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

func (h *harnest) get(t *testing.T, path string, headers ...string) reply {
	t.Helper()
	return h.do(t, "GET", path, "", headers...)
}

func (h *harnest) post(t *testing.T, path, body string, headers ...string) reply {
	t.Helper()
	return h.do(t, "POST", path, body, headers...)
}

// completeResponse posts a JSON (non-streaming) response and checks that it
// completed.
func (h *harnest) completeResponse(t *testing.T, body string, headers ...string) (reply, map[string]any) {
	t.Helper()
	r := h.post(t, "/responses", body, headers...)
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "completed" {
		t.Fatalf("status %v, want completed: %s", v["status"], r.Body)
	}
	if id, _ := v["id"].(string); id == "" {
		t.Fatalf("response has no id: %s", r.Body)
	}
	if sid, _ := v["sessionId"].(string); sid == "" {
		t.Fatalf("response has no sessionId: %s", r.Body)
	}
	return r, v
}

// receiptPath is GET /responses/{id}?sessionId=.
func receiptPath(v map[string]any) string {
	return fmt.Sprintf("/responses/%s?sessionId=%s", v["id"], v["sessionId"])
}

// ---------------------------------------------------------------------------
// SSE

// sseFrame is one parsed SSE frame (the tests' one reader: testutil).
type sseFrame = testutil.SSEFrame

// sseStream is an open streaming response whose frames arrive on a channel.
type sseStream struct {
	resp   *http.Response
	frames chan sseFrame
	cancel context.CancelFunc
}

// openStream posts a streaming request and starts reading its frames.
func (h *harnest) openStream(t *testing.T, body string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "POST", h.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("POST /responses (stream): %v", err)
	}
	s := &sseStream{resp: resp, frames: make(chan sseFrame, 64), cancel: cancel}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("stream Content-Type %q, want text/event-stream", ct)
	}
	go s.read(ctx)
	return s
}

// read parses the stream's frames into s.frames until it ends.
func (s *sseStream) read(ctx context.Context) {
	defer close(s.frames)
	testutil.EachSSE(s.resp.Body, func(f sseFrame) bool {
		select {
		case s.frames <- f:
			return true
		case <-ctx.Done():
			return false
		}
	})
}

// next returns the next frame; false when the stream has ended.
func (s *sseStream) next(t *testing.T, limit time.Duration) (sseFrame, bool) {
	t.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case f, ok := <-s.frames:
		if ok && f.Err != nil {
			t.Fatalf("bad SSE frame %q: %v", f.Raw, f.Err)
		}
		return f, ok
	case <-timer.C:
		t.Fatalf("no SSE frame within %v", limit)
		return sseFrame{}, false
	}
}

// rest reads frames until the stream ends.
func (s *sseStream) rest(t *testing.T, limit time.Duration) []sseFrame {
	t.Helper()
	deadline := time.Now().Add(limit)
	var frames []sseFrame
	for {
		f, ok := s.next(t, time.Until(deadline))
		if !ok {
			return frames
		}
		frames = append(frames, f)
	}
}

func eventNames(frames []sseFrame) []string {
	names := make([]string, len(frames))
	for i, f := range frames {
		names[i] = f.Event
	}
	return names
}

// ---------------------------------------------------------------------------
// Agent folders

// agentFolder copies examples/hello into a temp dir, with echoOpts inside
// its "echo: {}" and extra appended to config.yaml.
func agentFolder(t *testing.T, echoOpts, extra string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"config.yaml", "agent-card.yaml", "instructions.md"} {
		b, err := os.ReadFile(filepath.Join(helloDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "config.yaml" {
			cfg := string(b)
			if !strings.Contains(cfg, "echo: {}") {
				t.Fatalf("%s/config.yaml has no \"echo: {}\" to adapt:\n%s", helloDir, cfg)
			}
			cfg = strings.Replace(cfg, "echo: {}", "echo: {"+echoOpts+"}", 1)
			if !strings.HasSuffix(cfg, "\n") {
				cfg += "\n"
			}
			b = []byte(cfg + extra)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// prefixed is config.yaml's store section with a key prefix unique to t.
func prefixed(t *testing.T) string {
	return fmt.Sprintf("store:\n  keyPrefix: %q\n", testutil.Prefix(t))
}

// realRedis returns the shared redis-server's URL or skips the test.
func realRedis(t *testing.T) string {
	t.Helper()
	url := testutil.RealRedis(t)
	if url == "" {
		t.Skip("needs redis-server")
	}
	return url
}

// ---------------------------------------------------------------------------
// Tests

func TestServeBannerAndCurlQuickStart(t *testing.T) {
	t.Parallel()
	h := startHarnest(t, helloDir, nil)

	t.Run("banner", func(t *testing.T) {
		out := h.waitOutput(t, "Auth:")
		for _, want := range []string{
			`serving agent "hello"`,
			"API:        " + h.URL + "\n",
			"Playground: " + h.URL + "/\n",
			"Swagger UI: " + h.URL + "/docs\n",
			h.URL + "/openapi.json\n",
			h.URL + "/openapi.yaml\n",
			"Store:      in-process store",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("banner lacks %q:\n%s", want, out)
			}
		}
		for _, p := range []string{"/", "/docs", "/openapi.json", "/openapi.yaml"} {
			mustStatus(t, h.get(t, p), http.StatusOK)
		}
	})

	t.Run("quick start", func(t *testing.T) {
		const input = "Hello! What can you help me with?"
		r, first := h.completeResponse(t, `{"input":"`+input+`"}`)
		if got, _ := first["outputText"].(string); !strings.Contains(got, input) {
			t.Fatalf("outputText %q does not contain the input", got)
		}
		sid := first["sessionId"].(string)
		if got := r.Header.Get("Harnest-Session-Id"); got != sid {
			t.Errorf("Harnest-Session-Id %q, want %q", got, sid)
		}

		_, second := h.completeResponse(t, `{"input":"And what else?","sessionId":"`+sid+`"}`)
		if second["sessionId"] != sid {
			t.Fatalf("follow-up sessionId %v, want %s", second["sessionId"], sid)
		}
		if second["id"] == first["id"] {
			t.Fatal("follow-up reused the response id")
		}

		s := h.openStream(t, `{"input":"Stream this please","stream":true}`)
		frames := s.rest(t, 20*time.Second)
		names := eventNames(frames)
		if len(frames) < 3 || names[0] != "response.created" || names[len(names)-1] != "response.completed" {
			t.Fatalf("frames %v, want response.created ... response.completed", names)
		}
		last := frames[len(frames)-1].Data
		if last["status"] != "completed" || !strings.Contains(fmt.Sprint(last["outputText"]), "Stream this please") {
			t.Fatalf("response.completed frame: %s", frames[len(frames)-1].Raw)
		}
	})

	t.Run("version", func(t *testing.T) {
		code, out, _ := runCmd(t, "version")
		if code != 0 || !strings.HasPrefix(out, "harnest ") || strings.TrimSpace(strings.TrimPrefix(out, "harnest ")) == "" {
			t.Fatalf("harnest version: exit %d, stdout %q", code, out)
		}
	})

	t.Run("check valid", func(t *testing.T) {
		code, out, errOut := runCmd(t, "check", helloDir)
		if code != 0 || !strings.Contains(out, `agent "hello" is valid`) {
			t.Fatalf("harnest check: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})

	t.Run("check broken", func(t *testing.T) {
		dir := agentFolder(t, "", "server: {http: {port: \"abc\"}}\nbogusKey: 1\n")
		code, out, errOut := runCmd(t, "check", dir)
		if code != 1 {
			t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("want one line per problem (2), got %d:\n%s", len(lines), out)
		}
		for i, want := range []string{"config.yaml: server.http.port: ", "config.yaml: bogusKey: "} {
			if !strings.HasPrefix(lines[i], want) {
				t.Errorf("line %d %q does not start with %q", i+1, lines[i], want)
			}
		}
	})

	t.Run("check recipes", func(t *testing.T) {
		dir := agentFolder(t, "", "")
		if err := os.MkdirAll(filepath.Join(dir, "recipes"), 0o755); err != nil {
			t.Fatal(err)
		}
		good := `{"schema":"harnest-recipe-1","id":"my-cli","revision":2,"label":"My CLI","transport":"relay-poll-v1",
"connector":"harness-connector-echo","pairing":{"instruction_id":"private-code-in-connector"},
"card":{"mapping":{"name":"owner_choice","kind":"recipe_id","skills":"declared_skills"}},
"stage_words":{"connected":"Home. Connected.","unavailable":"Run harnest connect to bring it home."},
"evidence":{"checked_on":"2026-12-01","status":"ready"},
"contract":{"version":1,"operations":["answer"],"cancellation":false,"resume":false}}`
		mustWrite(t, filepath.Join(dir, "recipes", "my-cli.json"), good)
		if code, out, errOut := runCmd(t, "check", dir); code != 0 {
			t.Fatalf("a valid folder recipe: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		bad := strings.Replace(strings.Replace(good, `"revision":2`, `"revision":0`, 1), `"id":"my-cli"`, `"id":"x"`, 1)
		mustWrite(t, filepath.Join(dir, "recipes", "x.json"), strings.Replace(bad, `"label":"My CLI"`, `"label":"My CLI","extra":1`, 1))
		code, out, errOut := runCmd(t, "check", dir)
		if code != 1 {
			t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		for _, want := range []string{"recipes/x.json: revision: ", "recipes/x.json: extra: "} {
			if !strings.Contains(out, "\n"+want) && !strings.HasPrefix(out, want) {
				t.Errorf("no line starting %q in:\n%s", want, out)
			}
		}
		if strings.Contains(out, "my-cli.json") {
			t.Errorf("the valid recipe is reported:\n%s", out)
		}
	})

	t.Run("unknown command", func(t *testing.T) {
		code, _, errOut := runCmd(t, "frobnicate")
		if code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
			t.Fatalf("exit %d, stderr %q; want 2 and the unknown command named", code, errOut)
		}
	})
}

func TestRestartKeepsStateOnRealRedis(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := agentFolder(t, "", prefixed(t))

	a := startHarnest(t, dir, nil, "--redis-url", url)
	if out := a.waitOutput(t, "Store:"); !strings.Contains(out, "Redis at "+url) {
		t.Errorf("banner does not name the Redis store:\n%s", out)
	}
	r, v := a.completeResponse(t, `{"input":"remember me"}`)
	sid := v["sessionId"].(string)
	a.mustStop(t)

	b := startHarnest(t, dir, nil, "--redis-url", url)
	got := b.get(t, receiptPath(v))
	mustStatus(t, got, http.StatusOK)
	if !bytes.Equal(got.Body, r.Body) {
		t.Fatalf("receipt after restart differs:\n got %s\nwant %s", got.Body, r.Body)
	}
	sess := b.get(t, "/sessions/"+sid)
	mustStatus(t, sess, http.StatusOK)
	if id := sess.JSON(t)["id"]; id != sid {
		t.Fatalf("session id %v, want %s", id, sid)
	}
	msgs := b.get(t, "/sessions/"+sid+"/messages")
	mustStatus(t, msgs, http.StatusOK)
	list, _ := msgs.JSON(t)["messages"].([]any)
	if len(list) != 2 {
		t.Fatalf("want 2 transcript messages, got %d: %s", len(list), msgs.Body)
	}
	for i, role := range []string{"user", "assistant"} {
		m, _ := list[i].(map[string]any)
		if m["role"] != role {
			t.Errorf("message %d role %v, want %s", i, m["role"], role)
		}
	}
	b.mustStop(t)
}

func TestTwoReplicasShareRedis(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := agentFolder(t, "", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)

	// A session made on A is visible on B.
	created := a.post(t, "/sessions", `{"id":"shared","state":{"k":"v"}}`)
	mustStatus(t, created, http.StatusCreated)
	onB := b.get(t, "/sessions/shared")
	mustStatus(t, onB, http.StatusOK)
	if !bytes.Equal(onB.Body, a.get(t, "/sessions/shared").Body) {
		t.Fatalf("replicas disagree on the session:\nA %s\nB %s", a.get(t, "/sessions/shared").Body, onB.Body)
	}

	// A response completed on B has the same receipt on A.
	r, v := b.completeResponse(t, `{"input":"made on B"}`)
	deadline := time.Now().Add(5 * time.Second)
	var receipt reply
	for {
		receipt = a.get(t, receiptPath(v))
		if receipt.Status == http.StatusOK && !strings.Contains(string(receipt.Body), `"status":"in_progress"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("receipt on A never final: %d %s", receipt.Status, receipt.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !bytes.Equal(receipt.Body, r.Body) {
		t.Fatalf("receipt on A differs from B's reply:\nA %s\nB %s", receipt.Body, r.Body)
	}

	// A lists both sessions, including the one B's response made.
	list := a.get(t, "/sessions")
	mustStatus(t, list, http.StatusOK)
	ids := map[string]bool{}
	sessions, _ := list.JSON(t)["sessions"].([]any)
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		ids[fmt.Sprint(m["id"])] = true
	}
	if !ids["shared"] || !ids[v["sessionId"].(string)] {
		t.Fatalf("A lists %v, want shared and %s", ids, v["sessionId"])
	}

	// B's response session can continue on A.
	_, next := a.completeResponse(t, `{"input":"continued on A","sessionId":"`+v["sessionId"].(string)+`"}`)
	if next["sessionId"] != v["sessionId"] {
		t.Fatalf("continued in session %v, want %v", next["sessionId"], v["sessionId"])
	}
	a.mustStop(t)
	b.mustStop(t)
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()

	// startTurn opens a stream and returns it once response.created has
	// arrived and the receipt says in_progress.
	startTurn := func(t *testing.T, h *harnest) (*sseStream, map[string]any) {
		t.Helper()
		s := h.openStream(t, `{"input":"one two three four five six","stream":true}`)
		first, ok := s.next(t, 10*time.Second)
		if !ok || first.Event != "response.created" {
			t.Fatalf("first frame %q, want response.created", first.Raw)
		}
		ids := map[string]any{"id": first.Data["responseId"], "sessionId": first.Data["sessionId"]}
		receipt := h.get(t, receiptPath(ids))
		mustStatus(t, receipt, http.StatusOK)
		if st := receipt.JSON(t)["status"]; st != "in_progress" {
			t.Fatalf("receipt status %v while streaming, want in_progress", st)
		}
		return s, ids
	}

	t.Run("finishes within grace", func(t *testing.T) {
		t.Parallel()
		dir := agentFolder(t, "delayMs: 300", "")
		h := startHarnest(t, dir, nil, "--shutdown-grace", "5s")
		s, _ := startTurn(t, h)

		h.signal(syscall.SIGTERM)
		frames := s.rest(t, 10*time.Second)
		names := eventNames(frames)
		if len(frames) == 0 || names[len(names)-1] != "response.completed" {
			t.Fatalf("frames after SIGTERM %v, want the stream to end with response.completed", names)
		}
		if n := strings.Count(strings.Join(names, " "), "response.text.delta"); n < 2 {
			t.Errorf("only %d text deltas after SIGTERM; the turn was not in flight", n)
		}
		h.mustExitAfterSignal(t)
	})

	t.Run("cancelled after grace", func(t *testing.T) {
		t.Parallel()
		url := testutil.RealRedis(t) // "" runs on the embedded store
		dir := agentFolder(t, "delayMs: 2000", prefixed(t))
		var args []string
		if url != "" {
			args = []string{"--redis-url", url}
		}
		h := startHarnest(t, dir, nil, append(args, "--shutdown-grace", "200ms")...)
		s, ids := startTurn(t, h)

		start := time.Now()
		h.signal(syscall.SIGTERM)
		frames := s.rest(t, 10*time.Second)
		names := eventNames(frames)
		// The stream ends with the receipt it leaves: response.completed
		// with status cancelled and code server_shutdown, as the receipt.
		if len(frames) == 0 {
			t.Fatal("no frame after SIGTERM")
		}
		last := frames[len(frames)-1]
		lastCode := ""
		if e, ok := last.Data["error"].(map[string]any); ok {
			lastCode, _ = e["code"].(string)
		}
		if last.Event != "response.completed" || last.Data["status"] != "cancelled" || lastCode != "server_shutdown" {
			t.Fatalf("frames after SIGTERM %v, last %s: want response.completed, cancelled, server_shutdown", names, last.Raw)
		}
		t.Logf("frames after SIGTERM: %v", names)
		h.mustExitAfterSignal(t)
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("exit took %v after SIGTERM with a 200ms grace", took)
		}

		if url == "" {
			t.Log("no redis-server: not checking the cancelled receipt from a second server")
			return
		}
		h2 := startHarnest(t, dir, nil, "--redis-url", url)
		r := h2.get(t, receiptPath(ids))
		mustStatus(t, r, http.StatusOK)
		v := r.JSON(t)
		code := ""
		if e, ok := v["error"].(map[string]any); ok {
			code, _ = e["code"].(string)
		}
		if v["status"] != "cancelled" || code != "server_shutdown" {
			t.Fatalf("receipt %s, want status cancelled and error.code server_shutdown", r.Body)
		}
		h2.mustStop(t)
	})
}

func TestLogsNeverContainSecrets(t *testing.T) {
	t.Parallel()
	const (
		secret  = "tok-SECRET-abc123"
		wrong   = "tok-WRONG-xyz"
		private = "very private message text"
	)
	dir := agentFolder(t, "", "auth:\n  tokens:\n    - token: ${E2E_TOKEN}\n      user: alice\n")
	h := startHarnest(t, dir, []string{"E2E_TOKEN=" + secret}, "--log-format", "json")

	type sent struct {
		id, method, path string
		status           int
	}
	var requests []sent
	call := func(method, path, body, token string, status int) reply {
		t.Helper()
		id := fmt.Sprintf("e2e-%d", len(requests)+1)
		hdr := []string{"X-Request-Id", id}
		if token != "" {
			hdr = append(hdr, "Authorization", "Bearer "+token)
		}
		r := h.do(t, method, path, body, hdr...)
		mustStatus(t, r, status)
		if got := r.Header.Get("X-Request-Id"); got != id {
			t.Fatalf("X-Request-Id %q, want %q", got, id)
		}
		requests = append(requests, sent{id, method, strings.SplitN(path, "?", 2)[0], status})
		return r
	}

	r := call("POST", "/responses", `{"input":"`+private+`"}`, secret, http.StatusOK)
	v := r.JSON(t)
	call("GET", receiptPath(v), "", secret, http.StatusOK)
	call("GET", "/sessions/"+v["sessionId"].(string)+"/messages", "", secret, http.StatusOK)
	call("POST", "/responses", `{"input":"`+private+`"}`, wrong, http.StatusUnauthorized)
	call("GET", "/sessions?probe="+wrong, "", wrong, http.StatusUnauthorized)
	call("GET", "/sessions", "", "", http.StatusUnauthorized)
	call("GET", "/agent", "", wrong, http.StatusOK) // public route, wrong token ignored
	h.mustStop(t)

	stderr, stdout := h.stderr.String(), h.stdout.String()
	for _, s := range []string{secret, wrong, private} {
		if strings.Contains(stderr, s) {
			t.Errorf("stderr contains %q:\n%s", s, stderr)
		}
		if strings.Contains(stdout, s) {
			t.Errorf("stdout contains %q:\n%s", s, stdout)
		}
	}

	byID := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON: %q", line)
			continue
		}
		if rec["msg"] != "request" {
			continue
		}
		for _, k := range []string{"method", "path", "status", "duration", "requestId"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("request log line lacks %s: %s", k, line)
			}
		}
		if d, ok := rec["duration"].(float64); !ok || d < 0 {
			t.Errorf("duration %v is not a non-negative number: %s", rec["duration"], line)
		}
		id, _ := rec["requestId"].(string)
		byID[id] = append(byID[id], rec)
	}
	for _, req := range requests {
		recs := byID[req.id]
		if len(recs) != 1 {
			t.Errorf("request %s %s (%s): %d log lines, want 1", req.method, req.path, req.id, len(recs))
			continue
		}
		rec := recs[0]
		if rec["method"] != req.method || rec["path"] != req.path || rec["status"] != float64(req.status) {
			t.Errorf("log line %v, want method %s path %s status %d", rec, req.method, req.path, req.status)
		}
	}
}

// mustWrite writes a test file.
func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
