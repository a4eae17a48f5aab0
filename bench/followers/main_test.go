package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A follower counts the events after the requires_action boundary and
// signals once it reached the boundary.
func TestFollowCountsEventsAfterTheBoundary(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: response.created\nid: 0\ndata: {}\n\n"+
			"event: approval.requested\nid: 1\ndata: {}\n\n"+
			"event: response.completed\nid: 2\ndata: {\"status\":\"requires_action\"}\n\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event: response.text.delta\nid: 3\ndata: {}\n\n"+
			"event: response.text.delta\nid: 4\ndata: {}\n\n"+
			"event: response.completed\nid: 5\ndata: {\"status\":\"completed\"}\n\n")
	}))
	defer srv.Close()

	var f follower
	atBoundary := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.follow(context.Background(), srv.Client(), srv.URL, func() { close(atBoundary) })
	}()
	select {
	case <-atBoundary:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower did not reach the boundary")
	}
	close(release)
	<-done
	if f.err != nil || f.events != 3 || f.last != "response.completed" {
		t.Fatalf("follower = %+v, want 3 events after the boundary ending with response.completed", f)
	}
}

func TestReportFanOutRefusesMissingEvents(t *testing.T) {
	now := time.Now()
	ok := follower{events: 3, last: "response.completed", end: now}
	short := follower{events: 2, last: "response.completed", end: now}
	cut := follower{events: 1, last: "response.text.delta", end: now}
	if err := reportFanOut([]follower{ok, ok}, Options{Deltas: 2}, now, time.Millisecond); err != nil {
		t.Fatalf("two complete followers: %v", err)
	}
	for _, fs := range [][]follower{{ok, short}, {ok, cut}} {
		err := reportFanOut(fs, Options{Deltas: 2}, now, time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "1 of 2 followers failed") {
			t.Errorf("reportFanOut(%+v) = %v, want one failed follower", fs, err)
		}
	}
}

// A session follower leaves after the response's final event: the
// session's stream itself goes on (it would follow the next response).
func TestSessionFollowerLeavesAfterTheResponse(t *testing.T) {
	release := make(chan struct{})
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: response.created\nid: 1.0\ndata: {}\n\n"+
			"event: response.completed\nid: 1.1\ndata: {\"status\":\"requires_action\"}\n\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event: response.text.delta\nid: 1.2\ndata: {}\n\n"+
			"event: response.completed\nid: 1.3\ndata: {\"status\":\"completed\"}\n\n")
		w.(http.Flusher).Flush()
		select { // the session's stream stays open for the next response
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)

	f := follower{session: true}
	atBoundary := make(chan struct{})
	left := make(chan struct{})
	go func() {
		defer close(left)
		f.follow(context.Background(), srv.Client(), srv.URL, func() { close(atBoundary) })
	}()
	<-atBoundary
	close(release)
	select {
	case <-left:
	case <-time.After(5 * time.Second):
		t.Fatal("the session follower did not leave after the response's final event")
	}
	if f.err != nil || f.events != 2 || f.last != "response.completed" {
		t.Fatalf("follower = %+v, want 2 events after the boundary ending with response.completed", f)
	}
}
