package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// "harnest connect" is the outside agent's side of relay-poll-v1: it pairs
// with a code, long-polls the inbox and replies to each item with the
// answer of a local answerer. The files of this command:
//
//	connect.go          flags, the connector, the pairing code, self-test
//	connect_relay.go    the relay's HTTP calls and the poll loop
//	connect_exec.go     --exec and --preset: a local command per question
//	connect_presets.go  the fixed commands of --preset
//	connect_a2a.go      --a2a: the bridge to a local A2A agent
//	connect_a2a_answer.go  the text of an A2A Message or Task

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

// job is one question to answer, with what a child program may need to
// call tools at home for it.
type job struct {
	text          string
	relayID       string // "" in a self-test
	runNote       string // the item's callback.run_note, when the server sends one
	callbackToken string // the pairing's callback_token, when the server sends one
	server        string // the relay server's base URL
}

// answerer answers questions: a local command (--exec, --preset) or a
// local A2A agent (--a2a).
type answerer interface {
	// answer returns the answer text, or an error that says why there is
	// none. ctx carries the item's deadline.
	answer(ctx context.Context, j job) (string, error)
	// what names the answerer in messages: `the command "claude"`.
	what() string
}

// connector is one running "harnest connect".
type connector struct {
	base          string
	name, kind    string
	answerer      answerer
	wait          int
	cmdTimeout    time.Duration
	client        *http.Client // the relay's: one keep-alive connection
	token         string       // the session token: kept in memory, never printed
	callbackToken string       // tools at home: kept in memory, handed to --exec children only
	stdout        io.Writer
	stderr        io.Writer
	seen          map[string]time.Time // relay ID → deadline, so a repeated item runs once
	sleep         func(ctx context.Context, d time.Duration) bool
}

// connectFlags are the command line of "harnest connect".
type connectFlags struct {
	server, name, kind string
	execLine, preset   string
	a2aURL             string
	wait               int
	timeout            time.Duration
	selfTest           bool
	notice             string
}

const connectUsage = `Usage:
  harnest connect --server URL --name N --kind K --exec "cmd args"
  harnest connect --server URL --name N --kind K --preset claude|codex|deepseek|gemini|openclaw
  harnest connect --server URL --name N --kind K --a2a http://127.0.0.1:8001/
  harnest connect --self-test (--exec "cmd args" | --preset NAME | --a2a URL)
  harnest connect --server URL --name N --kind K --notice "text"

Each question is answered by exactly one of:
  --exec    a command run once per question: the question on its standard
            input, the answer on its standard output; split into words
            without a shell.
  --preset  the fixed command of a known harness, the question on standard
            input, never through a shell:
%s
  --a2a     a local A2A agent: one blocking SendMessage (A2A 1.0 JSON-RPC;
            message/send for an agent whose card says 0.3 or that does not
            know SendMessage). The answer is the text of the returned
            Message or completed Task; a task still working, or waiting
            for input, is no answer. Plain http only to 127.0.0.1,
            localhost or ::1, https otherwise. The agent's own credential
            comes from A2A_TOKEN (sent as Bearer), never from a flag.

The pairing code is read from HARNEST_PAIRING_CODE, else asked for without
echo. --self-test asks the answerer one sample question locally and checks
the answer against the reply rules, without any server. When the server
has tools at home on, --exec and --preset children also get
HARNEST_TOOLS_URL, HARNEST_CALLBACK_TOKEN and HARNEST_RUN_NOTE.

Flags:
`

// parseConnectFlags reads the command line; flag.ErrHelp for -h.
func parseConnectFlags(args []string, stderr io.Writer) (*connectFlags, error) {
	f := &connectFlags{}
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.server, "server", "", "harnest server URL, e.g. http://127.0.0.1:1907")
	fs.StringVar(&f.name, "name", "", "participant name the owner chose")
	fs.StringVar(&f.kind, "kind", "", "participant kind the owner chose, e.g. cli")
	fs.StringVar(&f.execLine, "exec", "", `command run for each question (argv split without a shell), e.g. "python3 answer.py"`)
	fs.StringVar(&f.preset, "preset", "", "fixed command of a known harness: "+strings.Join(presetNames(), ", "))
	fs.StringVar(&f.a2aURL, "a2a", "", "URL of a local A2A agent's JSON-RPC endpoint (credential in A2A_TOKEN)")
	fs.IntVar(&f.wait, "wait", 20, "long-poll wait in seconds (0-20)")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "longest time for one answer (the item's deadline also applies)")
	fs.BoolVar(&f.selfTest, "self-test", false, "ask the answerer one sample question locally and check the answer")
	fs.StringVar(&f.notice, "notice", "", "send this notice to the owner and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, connectUsage, presetList())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err // already printed
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q (the pairing code is never a flag or argument)", fs.Arg(0))
		fmt.Fprintln(stderr, "harnest connect:", err)
		return nil, err
	}
	return f, nil
}

// runConnect is "harnest connect" with its environment and output given,
// so that tests run it in-process; it returns the exit code.
func runConnect(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	f, err := parseConnectFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	c := &connector{base: strings.TrimRight(f.server, "/"), name: f.name, kind: f.kind, wait: min(max(f.wait, 0), 20),
		cmdTimeout: f.timeout, stdout: stdout, stderr: stderr, seen: map[string]time.Time{}, sleep: sleepCtx}
	c.client = newRelayClient(c.wait)
	ans, err := newAnswerer(f, getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "harnest connect:", err)
		return 2
	}
	c.answerer = ans
	if f.selfTest {
		if ans == nil {
			fmt.Fprintln(stderr, "harnest connect: --self-test needs --exec, --preset or --a2a")
			return 2
		}
		return c.selfTest(ctx)
	}
	if c.base == "" || c.name == "" || c.kind == "" || (ans == nil && f.notice == "") {
		fmt.Fprintln(stderr, "harnest connect: needs --server, --name, --kind and one of --exec, --preset, --a2a (or --notice); see harnest connect -h")
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
	if f.notice != "" {
		return c.sendNotice(ctx, f.notice)
	}
	fmt.Fprintf(stderr, "Connected as %q (%s); %s answers; waiting for questions.\n", c.name, c.kind, ans.what())
	return c.loop(ctx)
}

// newAnswerer builds the one answerer the flags name (nil when none is
// named), refusing more than one.
func newAnswerer(f *connectFlags, getenv func(string) string, stderr io.Writer) (answerer, error) {
	named := 0
	for _, s := range []string{f.execLine, f.preset, f.a2aURL} {
		if s != "" {
			named++
		}
	}
	switch {
	case named > 1:
		return nil, errors.New("give only one of --exec, --preset and --a2a")
	case f.execLine != "":
		argv, err := splitArgs(f.execLine)
		if err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("--exec: %s", errOr(err, "empty command"))
		}
		return &commandAnswerer{argv: argv, stderr: stderr}, nil
	case f.preset != "":
		p, err := presetAnswerer(f.preset, stderr)
		if err != nil {
			return nil, err
		}
		return p, nil
	case f.a2aURL != "":
		b, err := newA2ABridge(f.a2aURL, getenv("A2A_TOKEN"), nil)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, nil
}

// run asks the answerer within budget and checks the answer against the
// reply rules. An error, a timeout or an answer that breaks a rule is no
// answer.
func (c *connector) run(ctx context.Context, j job, budget time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	answer, err := c.answerer.answer(ctx, j)
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("%s ran out of time (%s)", c.answerer.what(), budget.Round(time.Millisecond))
	}
	if err != nil {
		return "", err
	}
	answer = strings.TrimRight(answer, "\r\n")
	return answer, checkAnswer(answer)
}

// selfTest asks the answerer the sample question and prints the answer.
func (c *connector) selfTest(ctx context.Context) int {
	answer, err := c.run(ctx, job{text: connectSelfTestQ, server: c.base}, c.cmdTimeout)
	if err != nil {
		fmt.Fprintf(c.stderr, "Self-test failed: %v.\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "Self-test passed: %s answered %d characters within the reply rules:\n%s\n",
		c.answerer.what(), utf8.RuneCountInString(answer), answer)
	return 0
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
	line, _ := bufio.NewReader(tty).ReadString('\n')
	fmt.Fprintln(tty)
	code := strings.TrimSpace(line)
	if code == "" {
		return "", errors.New("no pairing code given")
	}
	return code, nil
}
