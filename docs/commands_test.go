package docs

import (
	"context"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A shell block of the docs (```sh, ```bash, ```shell) is accounted for by
// the HTML comment on the line before it:
//
//	<!-- run -->                  TestNewcomerCommands runs it verbatim
//	<!-- covered-by: TestName … --> the named tests (which must exist) cover it
//	<!-- not-run: reason -->      it needs what tests cannot have, and says why
type shellBlock struct {
	file   string // relative to the repository root
	line   int    // of the opening fence
	marker string // run, covered-by or not-run; empty when unmarked
	note   string // the marker's text after the colon
	body   string
}

var (
	fence  = regexp.MustCompile("^```(sh|bash|shell|console)\\s*$")
	marker = regexp.MustCompile(`^<!-- (run|covered-by|not-run)(?::\s*(.*?))?\s*-->$`)
)

// docFiles are the documents whose commands a newcomer runs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	mds, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range mds {
		files = append(files, filepath.Join("docs", md))
	}
	return files
}

func shellBlocks(t *testing.T) []shellBlock {
	t.Helper()
	var blocks []shellBlock
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			if !fence.MatchString(lines[i]) {
				continue
			}
			blk := shellBlock{file: file, line: i + 1}
			for j := i - 1; j >= 0; j-- {
				if strings.TrimSpace(lines[j]) == "" {
					continue
				}
				if m := marker.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
					blk.marker, blk.note = m[1], m[2]
				}
				break
			}
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				body = append(body, lines[i])
			}
			blk.body = strings.Join(body, "\n") + "\n"
			blocks = append(blocks, blk)
		}
	}
	return blocks
}

// testFuncs returns the names of every Test function of the repository.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	names := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestShellBlocksAccounted checks that every shell block of README.md and
// docs/*.md is run by TestNewcomerCommands, or names existing tests that
// cover it, or says why no test runs it.
func TestShellBlocksAccounted(t *testing.T) {
	blocks := shellBlocks(t)
	if len(blocks) < 5 {
		t.Fatalf("found %d shell blocks; the block reader is broken", len(blocks))
	}
	tests := testFuncs(t)
	name := regexp.MustCompile(`\bTest\w+`)
	for _, b := range blocks {
		where := b.file + ":" + itoa(b.line)
		switch b.marker {
		case "":
			t.Errorf("%s: a shell block without a marker; put <!-- run -->, <!-- covered-by: TestName --> or <!-- not-run: reason --> on the line before it", where)
		case "covered-by":
			names := name.FindAllString(b.note, -1)
			if len(names) == 0 {
				t.Errorf("%s: covered-by names no test", where)
			}
			for _, n := range names {
				if !tests[n] {
					t.Errorf("%s: covered-by names %s, and no test of the repository is called that", where, n)
				}
			}
		case "not-run":
			if strings.TrimSpace(b.note) == "" {
				t.Errorf("%s: not-run gives no reason", where)
			}
		case "run":
			if b.note != "" {
				t.Errorf("%s: <!-- run --> takes no text", where)
			}
		}
	}
}

// serveLine is the README's command that serves the quick start's agent.
const serveLine = "go run ./cmd/harnest serve examples/hello"

// TestNewcomerCommands runs what a newcomer runs: the README's set-up
// command, verbatim, as the server (it serves 127.0.0.1:1907), then every
// block marked <!-- run -->, verbatim, from the repository root. The docs
// name port 1907, so when something else holds it the test skips, saying
// so, rather than rewrite the commands.
func TestNewcomerCommands(t *testing.T) {
	blocks := shellBlocks(t)
	var run []shellBlock
	served := false
	for _, b := range blocks {
		if b.marker == "run" {
			run = append(run, b)
		}
		if b.file == "README.md" && strings.HasPrefix(strings.TrimSpace(b.body), serveLine) {
			served = true
		}
	}
	if !served {
		t.Fatalf("README.md has no shell block starting with %q", serveLine)
	}
	if len(run) == 0 {
		t.Fatal("no block is marked <!-- run -->")
	}
	l, err := net.Listen("tcp", "127.0.0.1:1907")
	if err != nil {
		t.Skipf("port 1907 is busy (%v): the docs' commands use it, so they cannot run verbatim now", err)
	}
	l.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	server := startServer(t, ctx)
	defer server.stop(t)

	for _, b := range run {
		t.Run(b.file+":"+itoa(b.line), func(t *testing.T) {
			bctx, bcancel := context.WithTimeout(ctx, 3*time.Minute)
			defer bcancel()
			cmd := exec.CommandContext(bctx, "sh", "-e", "-c", b.body)
			cmd.Dir = ".."
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s:%d failed: %v\n--- block\n%s--- output\n%s", b.file, b.line, err, b.body, out)
			}
			if len(out) > 400 {
				out = append(out[:400:400], " …"...)
			}
			t.Logf("%s", out)
		})
	}
}

type server struct {
	cmd  *exec.Cmd
	done chan error
	out  *lockedWriter
}

// startServer runs the README's serve line in its own process group (go
// run starts harnest as its child) and waits for /readyz.
func startServer(t *testing.T, ctx context.Context) *server {
	t.Helper()
	cmd := exec.Command("sh", "-c", "exec "+serveLine)
	cmd.Dir = ".."
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &lockedWriter{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1), out: out}
	go func() { s.done <- cmd.Wait() }()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		r, err := client.Get("http://127.0.0.1:1907/readyz")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-s.done:
			if strings.Contains(s.output(), "address already in use") {
				t.Skipf("port 1907 was taken while %s started: the docs' commands use it, so they cannot run verbatim now\n%s", serveLine, s.output())
			}
			t.Fatalf("%s ended before it served: %v\n%s", serveLine, err, s.output())
		case <-ctx.Done():
			s.stop(t)
			t.Fatalf("%s did not serve 127.0.0.1:1907 in time\n%s", serveLine, s.output())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop interrupts the process group (go run and harnest), then kills it if
// it has not ended within 20 s.
func (s *server) stop(t *testing.T) {
	t.Helper()
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.done
		t.Errorf("%s did not stop on SIGINT within 20 s; killed", serveLine)
	}
	// harnest itself must be gone too: the port is free again.
	for i := 0; i < 100; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:1907")
		if err == nil {
			l.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	t.Errorf("port 1907 still held after %s stopped", serveLine)
}

func (s *server) output() string { return s.out.String() }

func itoa(n int) string { return strconv.Itoa(n) }

// lockedWriter collects the server's stdout and stderr.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
