package testutil

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireNodeEnv, when set to 1, makes tests that need node and the npm
// packages of a test folder fail instead of skipping when they are
// missing. CI sets it after npm ci.
const RequireNodeEnv = "HARNEST_REQUIRE_NODE"

// A2AJSDir is conformance/a2a-js: the @a2a-js/sdk clients and servers the
// A2A tests run in node (npm ci there installs them).
func A2AJSDir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "conformance", "a2a-js")
}

// RequireNode returns node's path once dir/node_modules holds every one of
// pkgs. When something is missing the test is skipped, or fails under
// HARNEST_REQUIRE_NODE=1.
func RequireNode(tb testing.TB, dir string, pkgs ...string) string {
	tb.Helper()
	node, missing := FindNode(dir, pkgs...)
	if missing != "" {
		if os.Getenv(RequireNodeEnv) == "1" {
			tb.Fatalf("%s=1 but %s", RequireNodeEnv, missing)
		}
		tb.Skip(missing)
	}
	return node
}

// FindNode returns node's path, or what is missing: node itself or one of
// pkgs in dir/node_modules.
func FindNode(dir string, pkgs ...string) (node, missing string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "node is not on PATH"
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			return "", pkg + " is not installed (run npm ci in " + dir + ")"
		}
	}
	return node, ""
}

// StartNodeServer runs "node script args..." in dir, waits (at most 20 s)
// for the line "listening <port>" on its standard output and returns the
// port. Each later line of its output goes to lines (nil: dropped). The
// process is killed when the test ends.
func StartNodeServer(tb testing.TB, node, dir string, lines func(string), script string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = dir
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	tb.Cleanup(stop)
	ready := make(chan string, 1)
	go func() {
		defer close(ready)
		sc := bufio.NewScanner(stdout)
		listening := false
		for sc.Scan() {
			if port, ok := strings.CutPrefix(sc.Text(), "listening "); ok && !listening {
				listening = true
				ready <- port
			} else if lines != nil {
				lines(sc.Text())
			}
		}
	}()
	select {
	case port, ok := <-ready:
		if !ok {
			stop()
			tb.Fatalf("%s exited before listening: %s", script, stderr.String())
		}
		return port
	case <-time.After(20 * time.Second):
		stop()
		tb.Fatalf("%s did not listen within 20s: %s", script, stderr.String())
	}
	return ""
}
