// Command idlelive holds many idle /live WebSocket connections open against
// a running harnest and reports how much memory the server gained per
// connection, read from the server process's resident set (VmRSS) before
// and after. The client is a separate process, so its own memory is not
// counted; the server's RSS includes Go's heap slack, so the figure is an
// upper bound.
//
//	harnest serve <folder with server.live: true> --port 19070 &
//	go run ./bench/idlelive -url ws://127.0.0.1:19070/live -pid $! -n 10000
//
// It only dials loopback addresses and stops by itself after -hold.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/bench/internal/httpjson"
	"github.com/harnest/harnest/bench/internal/loopback"
	"github.com/harnest/harnest/bench/internal/proc"
)

func main() {
	target := flag.String("url", "ws://127.0.0.1:1907/live", "the /live URL (loopback only)")
	pid := flag.Int("pid", 0, "the harnest server's process ID, to read its memory")
	n := flag.Int("n", 10000, "connections to hold")
	parallel := flag.Int("c", 64, "connections opened at once")
	hold := flag.Duration("hold", 3*time.Second, "how long to hold them idle before measuring")
	flag.Parse()
	if err := run(*target, *pid, *n, *parallel, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "idlelive:", err)
		os.Exit(1)
	}
}

func run(target string, pid, n, parallel int, hold time.Duration) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	if err := loopback.CheckURL(target); err != nil {
		return err
	}
	if pid <= 0 {
		return fmt.Errorf("pass the server's -pid")
	}
	// All sockets join one session, so the figure is the sockets' cost,
	// not new sessions' (which the embedded store keeps in this process).
	session, err := createSession(u)
	if err != nil {
		return err
	}
	before, err := proc.RSSKiB(pid)
	if err != nil {
		return err
	}
	conns := make([]*websocket.Conn, n)
	var failed atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	start := time.Now()
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				c, err := connect(target, session)
				if err != nil {
					failed.Add(1)
					continue
				}
				conns[i] = c
			}
		}()
	}
	wg.Wait()
	opened := int64(n) - failed.Load()
	fmt.Printf("opened %d idle connections in %v (%d failed)\n", opened, time.Since(start).Round(time.Millisecond), failed.Load())
	time.Sleep(hold)
	after, err := proc.RSSKiB(pid)
	if err != nil {
		return err
	}
	fmt.Printf("server RSS %d KiB -> %d KiB: %.1f KiB per idle connection\n", before, after, float64(after-before)/float64(max(opened, 1)))
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	return nil
}

// createSession makes the session every socket joins.
func createSession(u *url.URL) (string, error) {
	base := "http://" + u.Host
	var s struct {
		ID string `json:"id"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpjson.Post(ctx, loopback.Client(1), base+"/sessions", `{}`, &s); err != nil || s.ID == "" {
		return "", fmt.Errorf("create a session: %v (id %q)", err, s.ID)
	}
	return s.ID, nil
}

// connect opens /live and joins the session, then leaves the socket idle.
func connect(target, session string) (*websocket.Conn, error) {
	d := websocket.Dialer{NetDialContext: loopback.Dialer().DialContext, HandshakeTimeout: 10 * time.Second, ReadBufferSize: 256, WriteBufferSize: 256}
	c, _, err := d.Dial(target, nil)
	if err != nil {
		return nil, err
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"connect","sessionId":"`+session+`"}`)); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, msg, err := c.ReadMessage(); err != nil || !strings.Contains(string(msg), "session.connected") {
		c.Close()
		return nil, fmt.Errorf("connect: %s %v", msg, err)
	}
	return c, nil
}
