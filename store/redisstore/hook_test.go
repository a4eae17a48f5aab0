package redisstore

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// commandLog is a store.CommandObserver that remembers what it was told.
type commandLog struct {
	mu       sync.Mutex
	stores   map[string]bool
	commands map[string]int // by command name
	failed   map[string]int
	trips    map[string]int
}

func newCommandLog() *commandLog {
	return &commandLog{stores: map[string]bool{}, commands: map[string]int{}, failed: map[string]int{}, trips: map[string]int{}}
}

func (l *commandLog) StoreCommand(st, command string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stores[st] = true
	l.commands[command]++
	if err != nil {
		l.failed[command]++
	}
}

func (l *commandLog) StoreRoundTrip(st, command string, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if took < 0 {
		l.failed["negative round trip"]++
	}
	l.trips[command]++
}

// counts returns copies of what the log holds.
func (l *commandLog) counts() (commands, failed, trips map[string]int, stores []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.stores {
		stores = append(stores, s)
	}
	return maps(l.commands), maps(l.failed), maps(l.trips), stores
}

func maps(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TestCommandObserver: every command, script and pipeline the store sends
// is reported by name, a missing key is no failure, a failed command is,
// and a script that Redis forgot counts under its name both when EVALSHA
// fails and when EVAL runs it.
func TestCommandObserver(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			log := newCommandLog()
			s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(t), Observer: log})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			ctx := context.Background()
			if err := s.CreateSession(ctx, "alice", "s1", nil, "2026-01-01T00:00:00Z"); err != nil {
				t.Fatal(err)
			}
			if err := s.rdb.Get(ctx, s.prefix+"missing").Err(); err != redis.Nil {
				t.Fatalf("GET of a missing key: %v", err)
			}
			if err := s.pipelined(ctx, func(p redis.Pipeliner) {
				p.Get(ctx, s.prefix+"a")
				p.Get(ctx, s.prefix+"b")
			}); err != redis.Nil {
				t.Fatalf("pipeline of missing keys: %v", err)
			}
			if err := s.rdb.Do(ctx, "NOSUCHCOMMAND").Err(); err == nil {
				t.Fatal("an unknown command worked")
			}
			if err := s.rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			// Run alone, a forgotten script is sent again with EVAL.
			k := s.sessionKeys("alice", "s3")
			if err := createSessionScript.Run(ctx, s.rdb, []string{k.meta, k.state}, "2026-01-01T00:00:00Z").Err(); err != nil {
				t.Fatal(err)
			}
			// In a pipeline, the store loads the scripts again and retries.
			if err := s.rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateSession(ctx, "alice", "s2", nil, "2026-01-01T00:00:00Z"); err != nil {
				t.Fatal(err)
			}
			// A turn: the begin and commit scripts, one round trip each.
			begin := store.Begin{User: "alice", Session: "s4", ResponseID: "r1", CreateSession: true, Receipt: []byte(`{}`), Lease: time.Minute}
			if _, err := s.BeginResponse(ctx, begin); err != nil {
				t.Fatal(err)
			}
			commit := store.Commit{User: "alice", Session: "s4", ResponseID: "r1", Receipt: []byte(`{}`), Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}, Release: true}
			if err := s.CommitResponse(ctx, commit); err != nil {
				t.Fatal(err)
			}

			commands, failed, trips, stores := log.counts()
			wantStore := "redis"
			if c.URL == "" {
				wantStore = "miniredis"
			}
			if !slices.Equal(stores, []string{wantStore}) {
				t.Errorf("store labels %v, want %s", stores, wantStore)
			}
			// s1 by EVALSHA; s3 by EVALSHA (NOSCRIPT) then EVAL; s2 by
			// EVALSHA (NOSCRIPT) then EVALSHA again.
			if commands["create_session"] != 5 || failed["create_session"] != 2 || commands["evalsha"] != 0 || commands["eval"] != 0 {
				t.Errorf("scripts counted %v, failed %v", commands, failed)
			}
			if commands["begin_response"] != 1 || commands["commit_response"] != 1 || trips["begin_response"] != 1 || trips["commit_response"] != 1 {
				t.Errorf("a turn's scripts: commands %v, round trips %v", commands, trips)
			}
			if commands["ping"] < 1 || commands["script"] < len(scripts) {
				t.Errorf("Open's ping and script loads not counted: %v", commands)
			}
			if commands["get"] != 3 || failed["get"] != 0 {
				t.Errorf("GETs of missing keys: %d counted, %d failed", commands["get"], failed["get"])
			}
			if failed["nosuchcommand"] != 1 {
				t.Errorf("the unknown command: %v", failed)
			}
			// Pipelines: s1, s2 twice, the two GETs (and connection set-ups).
			if trips["pipeline"] < 4 || trips["get"] != 1 || trips["create_session"] != 2 || failed["negative round trip"] != 0 {
				t.Errorf("round trips %v", trips)
			}
		})
	}
}

// TestScriptNames: every named script is one the store loads, and no two
// share a name (a script without a name counts as "evalsha").
func TestScriptNames(t *testing.T) {
	seen := map[string]bool{}
	for sc, name := range scriptNames {
		if !slices.Contains(scripts, sc) {
			t.Errorf("script %q is not in scripts (scripts.go)", name)
		}
		if seen[name] || name == "" {
			t.Errorf("script name %q is empty or given twice", name)
		}
		seen[name] = true
	}
	if len(scriptNameBySHA) != len(scriptNames) {
		t.Errorf("%d script digests for %d names", len(scriptNameBySHA), len(scriptNames))
	}
}
