// Command followers measures harnest's SSE followers against a running
// server whose agent is bench/agents/stream20: many idle followers of one
// response, and the fan-out of that response's events to all of them.
//
//	followers -url http://127.0.0.1:PORT -pid PID -n 10000 -deltas 20
//
// It starts one background response ("approve deltas=N": the agent first
// asks for an approval, so the response waits), opens -n followers
// (GET /responses/{id}/events, which replay the events so far and then
// wait), and reads the server's resident memory (VmRSS) before and after:
// the difference per follower is what an idle follower costs, an upper
// bound that includes Go's heap slack. Then it approves: the agent streams
// -deltas text deltas, and every follower must receive every event up to
// response.completed. It reports the time from the approval to the last
// follower's end, and the server's CPU time per delivered event (one event
// written to one follower) and per source event (one event written to all).
//
// With -session the followers follow the response through its session's
// own stream (GET /sessions/{id}/events, which finds the waiting response
// and replays it) and leave after its final event: what an idle session
// follower costs, to compare with a response follower's.
//
// It only dials loopback addresses and gives up after -timeout.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/bench/internal/httpjson"
	"github.com/harnest/harnest/bench/internal/loopback"
	"github.com/harnest/harnest/bench/internal/proc"
)

// Options are the command's flags.
type Options struct {
	URL      string        // harnest's base URL
	PID      int           // harnest's process, to read its memory and CPU time
	N        int           // followers
	Deltas   int           // text deltas the response streams once approved
	Parallel int           // followers opened at once
	Hold     time.Duration // idle time before the memory is read
	Timeout  time.Duration // bound of the whole run
	Session  bool          // follow GET /sessions/{id}/events instead of the response's events
}

func main() {
	var o Options
	flag.StringVar(&o.URL, "url", "http://127.0.0.1:1907", "harnest's base URL (loopback only), serving bench/agents/stream20")
	flag.IntVar(&o.PID, "pid", 0, "harnest's process ID, to read its memory and CPU time")
	flag.IntVar(&o.N, "n", 1000, "followers to open")
	flag.IntVar(&o.Deltas, "deltas", 20, "text deltas the response streams once approved")
	flag.IntVar(&o.Parallel, "c", 64, "followers opened at once")
	flag.DurationVar(&o.Hold, "hold", 2*time.Second, "how long to hold the followers idle before reading the memory")
	flag.DurationVar(&o.Timeout, "timeout", 120*time.Second, "give up after this long")
	flag.BoolVar(&o.Session, "session", false, "follow the session's stream (GET /sessions/{id}/events) instead of the response's events")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "followers:", err)
		os.Exit(1)
	}
}

func run(o Options) error {
	if err := loopback.CheckURL(o.URL); err != nil {
		return err
	}
	if o.PID <= 0 {
		return errors.New("pass harnest's process ID with -pid")
	}
	if o.N < 1 || o.Deltas < 1 || o.Parallel < 1 {
		return errors.New("-n, -deltas and -c must be at least 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	client := loopback.Client(o.N)
	defer client.CloseIdleConnections()
	base := strings.TrimSuffix(o.URL, "/")

	resp, err := startWaitingResponse(ctx, client, base, o.Deltas)
	if err != nil {
		return err
	}
	rssBefore, err := proc.RSSKiB(o.PID)
	if err != nil {
		return err
	}

	followURL := base + "/responses/" + url.PathEscape(resp.ID) + "/events?sessionId=" + url.QueryEscape(resp.SessionID)
	kind := "follower"
	if o.Session {
		followURL, kind = base+"/sessions/"+url.PathEscape(resp.SessionID)+"/events", "session follower"
	}
	followers := make([]follower, o.N)
	for i := range followers {
		followers[i].session = o.Session
	}
	opened := make(chan struct{}, o.N)
	var wg sync.WaitGroup
	start := time.Now()
	sem := make(chan struct{}, o.Parallel)
	for i := range followers {
		wg.Go(func() {
			sem <- struct{}{}
			followers[i].follow(ctx, client, followURL, func() { <-sem; opened <- struct{}{} })
		})
	}
	for range o.N {
		select {
		case <-opened:
		case <-ctx.Done():
			return fmt.Errorf("only some of the %d followers were at the waiting response within %v; raise -timeout or lower -n", o.N, o.Timeout)
		}
	}
	fmt.Printf("opened %d followers of one waiting response in %v\n", o.N, time.Since(start).Round(time.Millisecond))
	time.Sleep(o.Hold)
	rssIdle, err := proc.RSSKiB(o.PID)
	if err != nil {
		return err
	}
	fmt.Printf("idle %ss: server RSS %d KiB -> %d KiB: %.1f KiB per idle %s (n=%d)\n",
		kind, rssBefore, rssIdle, float64(rssIdle-rssBefore)/float64(o.N), kind, o.N)

	cpuBefore, err := proc.CPUTime(o.PID)
	if err != nil {
		return err
	}
	approved := time.Now()
	if err := approve(ctx, client, base, resp.ApprovalID); err != nil {
		return err
	}
	wg.Wait()
	cpuAfter, err := proc.CPUTime(o.PID)
	if err != nil {
		return err
	}
	return reportFanOut(followers, o, approved, cpuAfter-cpuBefore)
}

// follower is one GET /responses/{id}/events, read to its end.
type follower struct {
	events int       // events after the requires_action boundary
	end    time.Time // when the stream ended
	last   string    // the name of the last event
	err    error     // why it failed, if it did
	// session: the stream is the session's, which goes on after the
	// response: the follower leaves after the response's final event.
	session bool
}

// follow reads the stream: the replayed events up to the requires_action
// boundary (a response.completed frame whose status is requires_action),
// at which point it calls atBoundary, then the events after it until the
// stream ends.
func (f *follower) follow(ctx context.Context, client *http.Client, followURL string, atBoundary func()) {
	signalled := false
	signal := func() {
		if !signalled {
			signalled = true
			atBoundary()
		}
	}
	defer signal() // a follower that failed still counts as opened; its error is reported
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, followURL, nil)
	if err != nil {
		f.err = err
		return
	}
	resp, err := client.Do(req)
	if err != nil {
		f.err = err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		f.err = fmt.Errorf("follow: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
		return
	}
	br := bufio.NewReaderSize(resp.Body, 4096)
	name := ""
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.err = err
			}
			f.end = time.Now()
			return
		}
		l := bytes.TrimRight(line, "\r\n")
		switch {
		case bytes.HasPrefix(l, []byte("event:")):
			name = string(bytes.TrimSpace(l[len("event:"):]))
		case len(l) == 0 && name != "":
			if signalled {
				f.events++
			}
			f.last = name
			if name == "response.completed" {
				if signalled && f.session {
					f.end = time.Now()
					return
				}
				signal()
			}
			name = ""
		}
	}
}

// waitingResponse is a background response waiting for its approval.
type waitingResponse struct {
	ID, SessionID, ApprovalID string
}

// startWaitingResponse starts a background response of the stream20 agent
// that asks for an approval first, and waits (bounded) until it does.
func startWaitingResponse(ctx context.Context, client *http.Client, base string, deltas int) (waitingResponse, error) {
	body := fmt.Sprintf(`{"input":"approve deltas=%d","background":true}`, deltas)
	var receipt struct {
		ID, SessionID, Status string
		RequiredAction        *struct{ ID string }
	}
	if err := httpjson.Post(ctx, client, base+"/responses", body, &receipt); err != nil {
		return waitingResponse{}, fmt.Errorf("start the background response: %w", err)
	}
	r := waitingResponse{ID: receipt.ID, SessionID: receipt.SessionID}
	receiptURL := base + "/responses/" + url.PathEscape(r.ID) + "?sessionId=" + url.QueryEscape(r.SessionID)
	for range 200 {
		if receipt.Status == "requires_action" && receipt.RequiredAction != nil {
			r.ApprovalID = receipt.RequiredAction.ID
			return r, nil
		}
		if receipt.Status != "in_progress" && receipt.Status != "" {
			return r, fmt.Errorf("the response ended %s instead of waiting for an approval: is the agent bench/agents/stream20?", receipt.Status)
		}
		time.Sleep(50 * time.Millisecond)
		if err := httpjson.Get(ctx, client, receiptURL, &receipt); err != nil {
			return r, fmt.Errorf("read the receipt: %w", err)
		}
	}
	return r, errors.New("the response did not ask for an approval within 10s: is the agent bench/agents/stream20?")
}

// approve answers the response's approval.
func approve(ctx context.Context, client *http.Client, base, approvalID string) error {
	var out struct{ Status string }
	if err := httpjson.Post(ctx, client, base+"/approvals/"+url.PathEscape(approvalID), `{"decision":"approve"}`, &out); err != nil {
		return fmt.Errorf("approve: %w", err)
	}
	return nil
}

// reportFanOut checks that every follower got every event and prints the
// delivery figures.
func reportFanOut(followers []follower, o Options, approved time.Time, cpu time.Duration) error {
	failed := 0
	var firstErr error
	want := -1
	delivered := 0
	last := approved
	for i := range followers {
		f := &followers[i]
		switch {
		case f.err != nil:
		case f.last != "response.completed":
			f.err = fmt.Errorf("stream ended after %q, want response.completed", f.last)
		case want >= 0 && f.events != want:
			f.err = fmt.Errorf("got %d events after the approval, another follower got %d", f.events, want)
		}
		if f.err != nil {
			failed++
			if firstErr == nil {
				firstErr = f.err
			}
			continue
		}
		want = f.events
		delivered += f.events
		if f.end.After(last) {
			last = f.end
		}
	}
	if firstErr != nil {
		return fmt.Errorf("%d of %d followers failed; the first: %w", failed, len(followers), firstErr)
	}
	took := last.Sub(approved)
	fmt.Printf("fan-out: %d events (%d deltas) to each of %d followers, %d delivered in %v: %.0f events/s\n",
		want, o.Deltas, len(followers), delivered, took.Round(time.Millisecond), float64(delivered)/took.Seconds())
	fmt.Printf("fan-out: server CPU %v: %.2f µs per delivered event, %.1f µs per source event (to all %d)\n",
		cpu, float64(cpu.Microseconds())/float64(delivered), float64(cpu.Microseconds())/float64(want), len(followers))
	return nil
}
