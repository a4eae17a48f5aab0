package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/bench/internal/httpjson"
)

// harnest is the neutral API of the server under test, as this command
// uses it.
type harnest struct {
	base   string
	client *http.Client
}

// createSession makes an empty session and returns its ID.
func (h *harnest) createSession(ctx context.Context) (string, error) {
	var s struct{ ID string }
	if err := httpjson.Post(ctx, h.client, h.base+"/sessions", `{}`, &s); err != nil {
		return "", fmt.Errorf("create a session: %w", err)
	}
	return s.ID, nil
}

// deleteSession deletes a session.
func (h *harnest) deleteSession(ctx context.Context, session string) error {
	if err := httpjson.Delete(ctx, h.client, h.base+"/sessions/"+url.PathEscape(session)); err != nil {
		return fmt.Errorf("delete a session: %w", err)
	}
	return nil
}

// createSessions makes n sessions, workers at a time.
func (h *harnest) createSessions(ctx context.Context, n, workers int) error {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if _, err := h.createSession(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when none failed
}

// turn makes one JSON turn in the session and returns how long it took.
func (h *harnest) turn(ctx context.Context, session string) (time.Duration, error) {
	var out struct{ Status string }
	start := time.Now()
	err := httpjson.Post(ctx, h.client, h.base+"/responses", `{"input":"hello","sessionId":"`+session+`"}`, &out)
	took := time.Since(start)
	if err == nil && out.Status != "completed" {
		err = fmt.Errorf("the turn ended %q, want completed", out.Status)
	}
	return took, err
}

// page is a page of the neutral API (a transcript's messages or a session
// list): its items are not decoded, only counted.
type page struct {
	Messages   []struct{} `json:"messages"`
	Sessions   []struct{} `json:"sessions"`
	NextCursor *string    `json:"nextCursor"`
}

func (p page) items() int { return len(p.Messages) + len(p.Sessions) }

func (p page) next() string {
	if p.NextCursor == nil {
		return ""
	}
	return *p.NextCursor
}

// messagesPage reads the session's transcript page after cursor.
func (h *harnest) messagesPage(ctx context.Context, session, cursor string) (string, int, error) {
	return h.readPage(ctx, h.base+"/sessions/"+url.PathEscape(session)+"/messages?limit=100", cursor, "a transcript page")
}

// sessionsPage reads the user's session list page after cursor.
func (h *harnest) sessionsPage(ctx context.Context, cursor string) (string, int, error) {
	return h.readPage(ctx, h.base+"/sessions?limit=100", cursor, "a session list page")
}

// readPage reads the page of list after cursor (list is the list's URL
// with its query); what names the page in an error. It returns the next
// page's cursor and how many items the page holds.
func (h *harnest) readPage(ctx context.Context, list, cursor, what string) (string, int, error) {
	if cursor != "" {
		list += "&cursor=" + url.QueryEscape(cursor)
	}
	var p page
	if err := httpjson.Get(ctx, h.client, list, &p); err != nil {
		return "", 0, fmt.Errorf("read %s: %w", what, err)
	}
	return p.next(), p.items(), nil
}

// countSessions walks the user's session list and counts it.
func (h *harnest) countSessions(ctx context.Context) (int, error) {
	n, cursor := 0, ""
	for {
		next, items, err := h.sessionsPage(ctx, cursor)
		if err != nil {
			return 0, err
		}
		n += items
		if next == "" {
			return n, nil
		}
		cursor = next
	}
}
