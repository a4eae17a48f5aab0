package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits the connector checks before it replies, as the relay does.
const (
	connectMaxAnswer  = 4000
	connectMaxOutput  = 1 << 20
	connectSelfTestQ  = "This is a harnest self-test. Answer with one short sentence."
	connectPairAgain  = "The session is no longer valid (expired, disconnected or never paired): ask the owner for a new code with `harnest pair` and run `harnest connect` again."
	connectMaxBackoff = 30 * time.Second
)

// connect is "harnest connect": the outside agent's side of relay-poll-v1.
func connect(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runConnect(ctx, args, os.Getenv, os.Stdout, os.Stderr)
}

type connector struct {
	base       string
	name, kind string
	argv       []string
	wait       int
	cmdTimeout time.Duration
	client     *http.Client
	token      string // the session token: kept in memory, never printed
	stdout     io.Writer
	stderr     io.Writer
	seen       map[string]time.Time // relay ID → deadline, so a repeated item runs once
	sleep      func(ctx context.Context, d time.Duration) bool
}

func runConnect(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "", "harnest server URL, e.g. http://127.0.0.1:1907")
	name := fs.String("name", "", "participant name the owner chose")
	kind := fs.String("kind", "", "participant kind the owner chose, e.g. cli")
	execLine := fs.String("exec", "", `command run for each question (argv split without a shell), e.g. "python3 answer.py"`)
	wait := fs.Int("wait", 20, "long-poll wait in seconds (0-20)")
	timeout := fs.Duration("timeout", 60*time.Second, "longest run of the command (the item's deadline also applies)")
	selfTest := fs.Bool("self-test", false, "run the command once on a sample question locally and check the answer")
	notice := fs.String("notice", "", "send this notice to the owner and exit")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage:
  harnest connect --server URL --name N --kind K --exec "cmd args"
  harnest connect --self-test --exec "cmd args"
  harnest connect --server URL --name N --kind K --notice "text"

The pairing code is read from HARNEST_PAIRING_CODE, else asked for without echo.
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "harnest connect: unexpected argument %q (the pairing code is never a flag or argument)\n", fs.Arg(0))
		return 2
	}
	c := &connector{base: strings.TrimRight(*server, "/"), name: *name, kind: *kind, wait: min(max(*wait, 0), 20),
		cmdTimeout: *timeout, stdout: stdout, stderr: stderr, seen: map[string]time.Time{}, sleep: sleepCtx}
	c.client = &http.Client{Timeout: time.Duration(c.wait)*time.Second + 15*time.Second}
	if *execLine != "" {
		argv, err := splitArgs(*execLine)
		if err != nil || len(argv) == 0 {
			fmt.Fprintln(stderr, "harnest connect: --exec:", errOr(err, "empty command"))
			return 2
		}
		c.argv = argv
	}
	if *selfTest {
		if c.argv == nil {
			fmt.Fprintln(stderr, "harnest connect: --self-test needs --exec")
			return 2
		}
		return c.selfTest(ctx)
	}
	if c.base == "" || c.name == "" || c.kind == "" || (c.argv == nil && *notice == "") {
		fs.Usage()
		return 2
	}
	code, err := readPairingCode(getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "harnest connect:", err)
		return 2
	}
	if code := c.exchange(ctx, code); code != 0 {
		return code
	}
	if *notice != "" {
		return c.sendNotice(ctx, *notice)
	}
	fmt.Fprintf(stderr, "Connected as %q (%s); waiting for questions.\n", c.name, c.kind)
	return c.loop(ctx)
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// readPairingCode reads the code privately: HARNEST_PAIRING_CODE, else a
// prompt on the terminal with echo turned off.
func readPairingCode(getenv func(string) string, stderr io.Writer) (string, error) {
	if code := strings.TrimSpace(getenv("HARNEST_PAIRING_CODE")); code != "" {
		return code, nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", errors.New("no terminal to ask for the pairing code; set HARNEST_PAIRING_CODE")
	}
	defer tty.Close()
	stty := func(arg string) error {
		cmd := exec.Command("stty", arg)
		cmd.Stdin = tty
		return cmd.Run()
	}
	if err := stty("-echo"); err != nil {
		return "", errors.New("cannot turn off echo to ask for the pairing code; set HARNEST_PAIRING_CODE")
	}
	defer func() { _ = stty("echo") }()
	fmt.Fprint(tty, "Pairing code (not shown): ")
	line, err := bufio.NewReader(tty).ReadString('\n')
	fmt.Fprintln(tty)
	code := strings.TrimSpace(line)
	if code == "" {
		return "", errors.New("no pairing code given")
	}
	_ = err
	return code, nil
}

// splitArgs splits a command line into argv like a shell would split
// words, without running a shell: spaces separate, single and double
// quotes group, a backslash escapes the next character (outside single
// quotes).
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unterminated quote or escape")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// call sends one request to the relay and decodes a JSON answer.
func (c *connector) call(ctx context.Context, method, path string, body any, out any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, connectMaxOutput))
	if err != nil {
		return 0, nil, nil, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, resp.Header, raw, fmt.Errorf("unreadable answer from the server: %w", err)
		}
	}
	return resp.StatusCode, resp.Header, raw, nil
}

func (c *connector) exchange(ctx context.Context, code string) int {
	var v struct {
		Token         string `json:"token"`
		ParticipantID string `json:"participant_id"`
		ExpiresAt     string `json:"expires_at"`
	}
	card := map[string]any{"name": c.name, "kind": c.kind, "description": "harnest connect"}
	status, _, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/pairings/exchange", map[string]any{"code": code, "card": card}, &v)
	if err != nil {
		fmt.Fprintln(c.stderr, "harnest connect: pairing failed:", err)
		return 1
	}
	if status != http.StatusCreated || v.Token == "" {
		fmt.Fprintf(c.stderr, "harnest connect: pairing failed (%d): %s\n", status, detailOf(raw))
		return 1
	}
	c.token = v.Token
	fmt.Fprintf(c.stderr, "Paired as participant %s; the session lasts until %s.\n", v.ParticipantID, v.ExpiresAt)
	return 0
}

func (c *connector) sendNotice(ctx context.Context, text string) int {
	status, _, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/notices", map[string]string{"text": text}, nil)
	if err != nil {
		fmt.Fprintln(c.stderr, "harnest connect: notice failed:", err)
		return 1
	}
	if status != http.StatusAccepted {
		fmt.Fprintf(c.stderr, "harnest connect: notice not sent (%d): %s\n", status, detailOf(raw))
		return 1
	}
	fmt.Fprintln(c.stdout, "Notice sent.")
	return 0
}

type relayItem struct {
	RelayID    string `json:"relay_id"`
	Text       string `json:"text"`
	AskedAt    string `json:"asked_at"`
	DeadlineAt string `json:"deadline_at"`
}

// retryAfter reads Retry-After in seconds (at least one second).
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 1 {
		n = 5
	}
	return time.Duration(n) * time.Second
}

// loop polls the inbox, answers each new item once and replies before its
// deadline, until ctx ends or the session is no longer valid.
func (c *connector) loop(ctx context.Context) int {
	backoff := time.Second
	for ctx.Err() == nil {
		var inbox struct {
			Items []relayItem `json:"items"`
		}
		status, h, raw, err := c.call(ctx, "GET", "/api/outside-agents/v1/inbox?wait="+strconv.Itoa(c.wait), nil, &inbox)
		switch {
		case ctx.Err() != nil:
			return 0
		case err != nil || status >= 500 || status == 0:
			fmt.Fprintf(c.stderr, "Polling failed (%s); retrying in %s.\n", errOr(err, strconv.Itoa(status)), backoff)
			if !c.sleep(ctx, backoff) {
				return 0
			}
			backoff = min(backoff*2, connectMaxBackoff)
			continue
		case status == http.StatusUnauthorized:
			fmt.Fprintln(c.stderr, connectPairAgain)
			return 1
		case status == http.StatusTooManyRequests:
			if !c.sleep(ctx, retryAfter(h)) {
				return 0
			}
			continue
		case status != http.StatusOK:
			fmt.Fprintf(c.stderr, "Polling failed (%d): %s; retrying in %s.\n", status, detailOf(raw), backoff)
			if !c.sleep(ctx, backoff) {
				return 0
			}
			backoff = min(backoff*2, connectMaxBackoff)
			continue
		}
		backoff = time.Second
		c.prune()
		for _, it := range inbox.Items {
			if code, stop := c.handle(ctx, it); stop {
				return code
			}
		}
	}
	return 0
}

// prune forgets relay IDs whose deadline passed long ago.
func (c *connector) prune() {
	now := time.Now()
	for id, d := range c.seen {
		if now.Sub(d) > 5*time.Minute {
			delete(c.seen, id)
		}
	}
}

// handle runs the command for one item (once per relay ID) and replies.
func (c *connector) handle(ctx context.Context, it relayItem) (int, bool) {
	if it.RelayID == "" {
		return 0, false
	}
	if _, done := c.seen[it.RelayID]; done {
		return 0, false
	}
	deadline, err := time.Parse(time.RFC3339, it.DeadlineAt)
	if err != nil {
		deadline = time.Now().Add(60 * time.Second)
	}
	c.seen[it.RelayID] = deadline
	budget := time.Until(deadline) - 500*time.Millisecond
	if budget > c.cmdTimeout {
		budget = c.cmdTimeout
	}
	if budget <= 0 {
		fmt.Fprintf(c.stderr, "Skipped %s: its deadline has passed.\n", it.RelayID)
		return 0, false
	}
	answer, err := c.run(ctx, it.Text, budget)
	if err != nil {
		fmt.Fprintf(c.stderr, "No answer for %s: %v.\n", it.RelayID, err)
		return 0, false
	}
	for attempt := 0; attempt < 3 && time.Now().Before(deadline); attempt++ {
		status, h, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/replies", map[string]string{"relay_id": it.RelayID, "text": answer}, nil)
		switch {
		case ctx.Err() != nil:
			return 0, true
		case err != nil || status >= 500:
			if !c.sleep(ctx, time.Second) {
				return 0, true
			}
			continue
		case status == http.StatusOK:
			fmt.Fprintf(c.stderr, "Answered %s.\n", it.RelayID)
		case status == http.StatusUnauthorized:
			fmt.Fprintln(c.stderr, connectPairAgain)
			return 1, true
		case status == http.StatusTooManyRequests:
			if !c.sleep(ctx, min(retryAfter(h), time.Until(deadline))) {
				return 0, true
			}
			continue
		default:
			fmt.Fprintf(c.stderr, "Reply to %s not accepted (%d): %s\n", it.RelayID, status, detailOf(raw))
		}
		return 0, false
	}
	return 0, false
}

// run runs the command once with the question on standard input and
// returns its standard output as the answer, checked against the reply
// rules. A non-zero exit, a timeout or an answer that breaks a rule is no
// answer.
func (c *connector) run(ctx context.Context, question string, budget time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Stdin = strings.NewReader(question)
	var out limitedBuffer
	out.max = connectMaxOutput
	cmd.Stdout = &out
	cmd.Stderr = c.stderr
	cmd.WaitDelay = time.Second
	cmd.Env = connectChildEnv()
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("the command ran out of time (%s)", budget.Round(time.Millisecond))
	}
	if err != nil {
		return "", fmt.Errorf("the command failed: %v", err)
	}
	answer := strings.TrimRight(out.String(), "\r\n")
	return answer, checkAnswer(answer)
}

// connectChildEnv is this process's environment without the connector's secrets.
func connectChildEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HARNEST_PAIRING_CODE=") || strings.HasPrefix(kv, "HARNEST_TOKEN=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// checkAnswer applies the relay's reply rules.
func checkAnswer(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("the answer is not valid UTF-8")
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("the answer is blank")
	}
	if n := utf8.RuneCountInString(s); n > connectMaxAnswer {
		return fmt.Errorf("the answer has %d characters; at most %d are allowed", n, connectMaxAnswer)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return errors.New("the answer contains control characters")
		}
	}
	return nil
}

func (c *connector) selfTest(ctx context.Context) int {
	answer, err := c.run(ctx, connectSelfTestQ, c.cmdTimeout)
	if err != nil {
		fmt.Fprintf(c.stderr, "Self-test failed: %v.\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "Self-test passed: the command answered %d characters within the reply rules.\n", utf8.RuneCountInString(answer))
	return 0
}

// limitedBuffer keeps at most max bytes and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
