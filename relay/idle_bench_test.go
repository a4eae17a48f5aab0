package relay_test

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// idlePolls is how many idle long polls BenchmarkIdlePolls holds: 1000, or
// HARNEST_IDLE_POLLS.
func idlePolls(b *testing.B) int {
	n := 1000
	if v := os.Getenv("HARNEST_IDLE_POLLS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("HARNEST_IDLE_POLLS=%q: want a positive whole number", v)
		}
	}
	return n
}

// inUse is the memory the process holds: the heap in use plus goroutine
// stacks, after a collection.
func inUse() (heap, stack uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse, m.StackInuse
}

// settle waits until the goroutine count reaches at least want and then
// stops changing, and returns it.
func settle(b *testing.B, want int) int {
	b.Helper()
	deadline := time.Now().Add(15 * time.Second)
	last, stableSince := runtime.NumGoroutine(), time.Now()
	for {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n != last {
			last, stableSince = n, time.Now()
		}
		if n >= want && time.Since(stableSince) > 300*time.Millisecond {
			return n
		}
		if time.Now().After(deadline) {
			b.Fatalf("goroutines did not settle: %d, want at least %d", n, want)
		}
	}
}

// BenchmarkIdlePolls holds N idle long polls (GET inbox?wait=20 from N
// paired participants, nothing to answer) against one in-process replica
// and reports what the server holds for each: heap plus goroutine stacks,
// and goroutines. The clients are bare TCP connections with the request
// written and nothing read (no client goroutines, no client buffers), so
// the delta is the server's: the HTTP connection, the handler's wait and
// the relay's waiter.
func BenchmarkIdlePolls(b *testing.B) {
	n := idlePolls(b)
	e := newEnv(b, "", envSetup{})
	tokens := make([]string, n)
	for i := range tokens {
		if i%20 == 0 {
			e.Clock.Advance(time.Minute) // the exchange bucket: 20 a minute per client
		}
		tokens[i], _ = e.pair(fmt.Sprintf("Idle %d", i), "cli")
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		b.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()

	// open writes N inbox requests on bare connections; release closes
	// them and waits until the server has let the polls go.
	open := func() []net.Conn {
		conns := make([]net.Conn, n)
		for i, tok := range tokens {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				b.Fatalf("poll %d: %v", i, err)
			}
			req := "GET /api/outside-agents/v1/inbox?wait=20 HTTP/1.1\r\nHost: " + u.Host +
				"\r\nAuthorization: Bearer " + tok + "\r\n\r\n"
			if _, err := c.Write([]byte(req)); err != nil {
				b.Fatalf("poll %d: %v", i, err)
			}
			conns[i] = c
		}
		return conns
	}
	release := func(conns []net.Conn, before int) {
		for _, c := range conns {
			c.Close()
		}
		deadline := time.Now().Add(15 * time.Second)
		for runtime.NumGoroutine() > before+n/2 {
			if time.Now().After(deadline) {
				b.Fatalf("the server did not let the polls go: %d goroutines, %d before", runtime.NumGoroutine(), before)
			}
			time.Sleep(20 * time.Millisecond)
		}
		settle(b, 0)
	}
	// A warm-up round grows the store's connection pool and the server's
	// free lists, so the measured round counts only what each poll holds.
	e.Clock.Advance(time.Minute)
	g := settle(b, 0)
	release(open(), g)

	var perPoll, heapPer, stackPer, gPer float64
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		e.Clock.Advance(time.Minute) // a fresh poll bucket for every participant
		g0 := settle(b, 0)
		heap0, stack0 := inUse()
		conns := open()
		// Each idle poll holds the connection's goroutine and its
		// background read; wait for all of them.
		g1 := settle(b, g0+2*n)
		heap1, stack1 := inUse()
		// The polls are still waiting: none has answered yet.
		_ = conns[0].SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := conns[0].Read(make([]byte, 1)); err == nil {
			b.Fatal("an idle poll answered before its wait ended")
		}
		heapPer = (float64(heap1) - float64(heap0)) / float64(n)
		stackPer = (float64(stack1) - float64(stack0)) / float64(n)
		perPoll = heapPer + stackPer
		gPer = float64(g1-g0) / float64(n)
		release(conns, g0)
	}
	b.StopTimer()
	b.ReportMetric(float64(n), "idle-polls")
	b.ReportMetric(perPoll, "B/idle-poll")
	b.ReportMetric(heapPer, "heap-B/idle-poll")
	b.ReportMetric(stackPer, "stack-B/idle-poll")
	b.ReportMetric(gPer, "goroutines/idle-poll")
}
