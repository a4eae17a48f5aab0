package live_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// BenchmarkLiveTurn is the latency of one turn on an open socket with the
// echo backend: response.create to response.completed. (A socket takes at
// most MaxIdleFrames frames between responses, so the benchmark opens a new
// one every 1,000 turns, off the clock.)
func BenchmarkLiveTurn(b *testing.B) {
	for _, sc := range testutil.Stores(b) {
		b.Run(sc.Name, func(b *testing.B) {
			ts := newLiveServer(b, sc.URL, setup{})
			c, _ := ts.connect("")
			turns := 0
			for b.Loop() {
				if turns++; turns > 1000 { // a socket takes at most 1024 idle frames
					b.StopTimer()
					_ = c.ws.Close()
					c, _ = ts.connect("")
					turns = 1
					b.StartTimer()
				}
				c.send(`{"type":"response.create","input":"hello"}`)
				for {
					if strings.Contains(string(c.nextRaw()), `"type":"response.completed"`) {
						break
					}
				}
			}
		})
	}
}

// BenchmarkSSETurn is the same turn as a streaming POST /responses on a
// kept-alive connection, read to its end.
func BenchmarkSSETurn(b *testing.B) {
	for _, sc := range testutil.Stores(b) {
		b.Run(sc.Name, func(b *testing.B) {
			ts := newLiveServer(b, sc.URL, setup{})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			for b.Loop() {
				resp, err := client.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"input":"hello","stream":true}`))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// idleSocketCount is how many sockets BenchmarkIdleSockets holds open:
// 2,000, or HARNEST_IDLE_SOCKETS (10,000 needs `ulimit -n` above 20,000:
// both ends of every socket live in this process).
func idleSocketCount() int {
	if n, err := strconv.Atoi(os.Getenv("HARNEST_IDLE_SOCKETS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// BenchmarkIdleSockets holds 2,000 connected, idle sockets and reports
// the server's memory per socket: the heap and goroutine stacks it gained,
// divided by the sockets. The clients are bare TCP connections that did
// the handshake by hand, so they add next to nothing.
//
//	go test -run '^$' -bench IdleSockets -benchtime 1x ./live/
func BenchmarkIdleSockets(b *testing.B) {
	ts := newLiveServer(b, "", setup{})
	r := ts.post("/sessions", `{"id":"idle"}`)
	if r.Status != 201 {
		b.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	addr := strings.TrimPrefix(ts.URL, "http://")
	idleSockets := idleSocketCount()
	for b.Loop() {
		conns := make([]net.Conn, 0, idleSockets)
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		for range idleSockets {
			conn, err := rawConnect(addr, "idle")
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, conn)
		}
		waitConns(b, ts.live, idleSockets)
		time.Sleep(100 * time.Millisecond)
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		stack := float64(after.StackInuse) - float64(before.StackInuse)
		n := float64(idleSockets)
		b.ReportMetric(n, "sockets")
		b.ReportMetric(heap/n/1024, "heap-KiB/socket")
		b.ReportMetric(stack/n/1024, "stack-KiB/socket")
		b.ReportMetric((heap+stack)/n/1024, "KiB/socket")
		for _, c := range conns {
			_ = c.Close()
		}
		waitConns(b, ts.live, 0)
	}
}

// rawConnect opens /live by hand over TCP and joins the session: the
// smallest possible client.
func rawConnect(addr, sessionID string) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	var key [16]byte
	_, _ = rand.Read(key[:])
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET /live HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", addr, base64.StdEncoding.EncodeToString(key[:]))
	br := bufio.NewReaderSize(conn, 512)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		conn.Close()
		return nil, fmt.Errorf("handshake: %q %v", status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, err
		}
		if line == "\r\n" {
			break
		}
	}
	payload := []byte(`{"type":"connect","sessionId":"` + sessionID + `"}`)
	frame := []byte{0x81, 0x80 | byte(len(payload)), 1, 2, 3, 4}
	for i, c := range payload {
		frame = append(frame, c^frame[2+i%4])
	}
	if _, err := conn.Write(frame); err != nil {
		conn.Close()
		return nil, err
	}
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		conn.Close()
		return nil, err
	}
	body := make([]byte, head[1]&0x7f)
	if _, err := io.ReadFull(br, body); err != nil || !strings.Contains(string(body), "session.connected") {
		conn.Close()
		return nil, fmt.Errorf("connect answered %q %v", body, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, nil
}
