// Package testutil holds helpers shared by harnest's tests: a real
// redis-server started once per test binary, the list of stores every
// store-backed test runs against, and a raw HTTP/1.1 client (RawConn).
package testutil

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RequireRedisEnv, when set to 1, makes tests fail instead of skipping the
// real-Redis variants when redis-server is missing. CI sets it.
const RequireRedisEnv = "HARNEST_REQUIRE_REDIS"

// StoreCase is one store a test runs against: URL "" is the embedded store.
type StoreCase struct {
	Name string
	URL  string
}

// Stores returns the embedded store and, when redis-server is installed, a
// real one. Each test should use its own KeyPrefix (see Prefix) because the
// real server is shared by the whole test binary.
func Stores(t testing.TB) []StoreCase {
	cases := []StoreCase{{Name: "embedded"}}
	if url := RealRedis(t); url != "" {
		cases = append(cases, StoreCase{Name: "redis-server", URL: url})
	}
	return cases
}

var (
	realOnce sync.Once
	realURL  string
	realErr  error
	realCmd  *exec.Cmd
)

// RealRedis returns the URL of a redis-server started for this test binary,
// or "" (the test is told why) when redis-server is not installed. With
// HARNEST_REQUIRE_REDIS=1 a missing or broken redis-server fails the test.
func RealRedis(t testing.TB) string {
	realOnce.Do(startRealRedis)
	if realErr != nil {
		if os.Getenv(RequireRedisEnv) == "1" {
			t.Fatalf("real Redis required (%s=1) but unavailable: %v", RequireRedisEnv, realErr)
		}
		t.Logf("skipping real-Redis variant: %v", realErr)
		return ""
	}
	return realURL
}

func startRealRedis() {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		realErr = fmt.Errorf("redis-server is not on PATH (apt-get install redis-server)")
		return
	}
	port, err := FreePort()
	if err != nil {
		realErr = err
		return
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	// It dies with the test binary, also in packages whose TestMain does
	// not call StopRealRedis.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		realErr = fmt.Errorf("start redis-server: %w", err)
		return
	}
	go func() { // drain its log so it never blocks
		s := bufio.NewScanner(stdout)
		for s.Scan() {
		}
	}()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; i < 100; i++ {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			realCmd, realURL = cmd, "redis://"+addr
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	realErr = fmt.Errorf("redis-server did not accept connections on %s within 5s", addr)
}

// StopRealRedis stops the shared redis-server; call it from TestMain after
// m.Run.
func StopRealRedis() {
	if realCmd != nil {
		_ = realCmd.Process.Kill()
		_ = realCmd.Wait()
	}
}

// Main runs a package's tests and stops the shared redis-server after them.
func Main(m *testing.M) {
	code := m.Run()
	StopRealRedis()
	os.Exit(code)
}

// FreePort asks the OS for a free loopback TCP port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Prefix returns a key prefix unique to one test, so tests sharing a real
// Redis never see each other's keys.
func Prefix(t testing.TB) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return "t:" + name + ":" + hex.EncodeToString(b[:]) + ":"
}
