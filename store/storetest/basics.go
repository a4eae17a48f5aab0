package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testBasics is the contract of the store itself: it answers Ping,
// describes itself without credentials, and fails its calls once closed.
func testBasics(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PingAndDescribe":          pingAndDescribe,
		"ClosedStoreFailsItsCalls": closedStoreFailsItsCalls,
	})
}

func pingAndDescribe(t *testing.T, s store.Store) {
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping of an open store: %v", err)
	}
	d := s.Describe()
	if d == "" || strings.Contains(d, "@") || strings.Contains(d, "password") {
		t.Fatalf("Describe() = %q: want a description without credentials", d)
	}
}

// A closed store fails every call, as a closed Redis client does: none
// reads what the store held, none writes.
func closedStoreFailsItsCalls(t *testing.T, s store.Store) {
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	now := time.Now()
	calls := map[string]func() error{
		"Ping": func() error { return s.Ping(ctx) },
		"GetSession": func() error {
			_, _, err := s.GetSession(ctx, "u", "s")
			return err
		},
		"CreateSession": func() error { return s.CreateSession(ctx, "u", "s2", nil, "t") },
		"BeginResponse": func() error {
			_, err := s.BeginResponse(ctx, beginArgs("u", "s3", "resp_1", true, time.Minute))
			return err
		},
		"AppendEvents": func() error { return s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 0)) },
		"EventsAfter": func() error {
			_, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10)
			return err
		},
		"PutTask": func() error {
			_, err := s.PutTask(ctx, "u", store.TaskRecord{ID: "t1", ContextID: "c", State: "working", StatusTime: now, Version: 1, JSON: []byte(`{}`)})
			return err
		},
		"GetThread": func() error {
			_, _, err := s.GetThread(ctx, "u", "s")
			return err
		},
		"GetParticipant": func() error {
			_, _, err := s.GetParticipant(ctx, relayOwnerA, "p", now)
			return err
		},
		"SharedSecret": func() error {
			_, err := s.SharedSecret(ctx, "k")
			return err
		},
		"PublishControl": func() error { return s.PublishControl(ctx, "x") },
		"StartHub": func() error {
			hub, err := s.StartHub(ctx, "r1", func(string) {})
			if err == nil {
				hub.Close()
			}
			return err
		},
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s on a closed store: no error", name)
		}
	}
}
