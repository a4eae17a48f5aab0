package testutil

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// OwnRedis is a redis-server started for one test, so that the test may
// pause, kill or restart it without disturbing the tests that share the
// one from RealRedis.
type OwnRedis struct {
	URL     string
	bin     string
	addr    string
	cmd     *exec.Cmd
	drained chan struct{}
}

// StartOwnRedis starts a redis-server on a free loopback port, or skips the
// test when none is installed (fails with HARNEST_REQUIRE_REDIS=1). It is
// resumed and killed when the test ends.
func StartOwnRedis(t testing.TB) *OwnRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireRedisEnv) == "1" {
			t.Fatalf("real Redis required (%s=1) but redis-server is not on PATH", RequireRedisEnv)
		}
		t.Skip("redis-server is not on PATH")
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	r := &OwnRedis{bin: bin, addr: addr, URL: "redis://" + addr}
	t.Cleanup(r.Kill)
	r.Start(t)
	return r
}

// Start runs redis-server on r's address (again, after Kill: empty) and
// waits until it accepts connections.
func (r *OwnRedis) Start(t testing.TB) {
	t.Helper()
	_, port, _ := net.SplitHostPort(r.addr)
	r.cmd = exec.Command(r.bin, "--bind", "127.0.0.1", "--port", port,
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	stdout, _ := r.cmd.StdoutPipe()
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	r.drained = make(chan struct{})
	go func(done chan struct{}) { // drain its log so it never blocks
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
		}
	}(r.drained)
	for range 100 {
		if c, err := net.DialTimeout("tcp", r.addr, 100*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redis-server did not accept connections on %s within 5s", r.addr)
}

// Pause stops the server with SIGSTOP: it keeps accepting TCP connections
// and answers nothing, as a hung Redis does.
func (r *OwnRedis) Pause() { r.signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (r *OwnRedis) Resume() { r.signal(syscall.SIGCONT) }

func (r *OwnRedis) signal(sig syscall.Signal) {
	if r.cmd != nil {
		_ = r.cmd.Process.Signal(sig)
	}
}

// Kill resumes (should it be paused) and kills the server, and waits for it.
func (r *OwnRedis) Kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGCONT)
	_ = r.cmd.Process.Kill()
	<-r.drained
	_ = r.cmd.Wait()
	r.cmd = nil
}
