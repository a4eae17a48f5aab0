package runtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/harnest/harnest/store/stores"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// openStore opens a store of the case under prefix, closed when the test
// ends.
func openStore(t *testing.T, c testutil.StoreCase, prefix string) store.Store {
	t.Helper()
	st, err := stores.Open(context.Background(), stores.Options{URL: c.URL, KeyPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// storeService is a Service on st that is never started: sealing needs
// only its store.
func storeService(t *testing.T, st store.Store) *Service {
	return New(Options{Store: st, Agent: AgentFunc(func(context.Context, *Turn, Emit) error { return nil })})
}

type position struct {
	Score int64  `json:"s"`
	ID    string `json:"i"`
}

func TestSealTokenOverStores(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			ctx := context.Background()
			s := storeService(t, openStore(t, c, testutil.Prefix(t)))
			want := position{Score: 1700000000000, ID: "task-1"}
			tok, err := s.SealToken(ctx, "a2a.tasks", "alice", want)
			if err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(tok, "+/=") {
				t.Fatalf("token %q is not URL-safe unpadded base64", tok)
			}
			var got position
			if ok, err := s.OpenToken(ctx, tok, "a2a.tasks", "alice", &got); !ok || err != nil || got != want {
				t.Fatalf("round trip: %v %v %+v", ok, err, got)
			}
			raw, _ := base64.RawURLEncoding.DecodeString(tok)
			if bytes.Contains(raw, []byte("task-1")) || bytes.Contains(raw, []byte("alice")) {
				t.Fatalf("token %q shows its content", tok)
			}

			refused := map[string]struct{ token, kind, user string }{
				"another user":  {tok, "a2a.tasks", "bob"},
				"no user":       {tok, "a2a.tasks", ""},
				"another kind":  {tok, "sessions", "alice"},
				"truncated":     {tok[:len(tok)-1], "a2a.tasks", "alice"},
				"half":          {tok[:len(tok)/2], "a2a.tasks", "alice"},
				"empty":         {"", "a2a.tasks", "alice"},
				"not base64":    {"%%%", "a2a.tasks", "alice"},
				"old format":    {rawCursor(`{"s":1700000000000,"i":"task-1"}`), "a2a.tasks", "alice"},
				"old envelope":  {rawCursor(`{"v":1,"k":"a2a.tasks","u":"alice","d":{"s":1,"i":"x"}}`), "a2a.tasks", "alice"},
				"padding added": {tok + "=", "a2a.tasks", "alice"},
				"trailing junk": {tok + "AA", "a2a.tasks", "alice"},
			}
			for i := range raw {
				refused[fmt.Sprintf("flipped byte %d", i)] = struct{ token, kind, user string }{flip(tok, i), "a2a.tasks", "alice"}
			}
			for name, r := range refused {
				var p position
				ok, err := s.OpenToken(ctx, r.token, r.kind, r.user, &p)
				if ok || err != nil {
					t.Errorf("%s: opened %v (err %v): %+v", name, ok, err, p)
				}
			}

			// Another store (another key) issued it: foreign.
			other := storeService(t, openStore(t, c, testutil.Prefix(t)))
			foreign, err := other.SealToken(ctx, "a2a.tasks", "alice", want)
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := s.OpenToken(ctx, foreign, "a2a.tasks", "alice", &got); ok {
				t.Fatal("a token sealed with another store's key opened")
			}
		})
	}
}

// TestSealTokenReplicas checks that replicas on the same Redis and prefix,
// each with its own store client, open each other's tokens, also when they
// make the key at the same moment.
func TestSealTokenReplicas(t *testing.T) {
	url := testutil.RealRedis(t)
	if url == "" {
		t.Skip("needs a real redis-server")
	}
	ctx := context.Background()
	prefix := testutil.Prefix(t)
	const replicas = 4
	svcs := make([]*Service, replicas)
	for i := range svcs {
		svcs[i] = storeService(t, openStore(t, testutil.StoreCase{URL: url}, prefix))
	}
	toks := make([]string, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range svcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			toks[i], errs[i] = svcs[i].SealToken(ctx, cursorSessions, "u", sessionCursor{AfterSessionID: fmt.Sprint("s", i)})
		}()
	}
	wg.Wait()
	for i := range svcs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for j := range svcs {
			var c sessionCursor
			if ok, err := svcs[j].OpenToken(ctx, toks[i], cursorSessions, "u", &c); !ok || err != nil || c.AfterSessionID != fmt.Sprint("s", i) {
				t.Fatalf("replica %d cannot open replica %d's token: %v %v %+v", j, i, ok, err, c)
			}
		}
	}
	// Through the neutral cursors too: a page cursor of one replica
	// continues on another.
	for i := 0; i < 3; i++ {
		if _, err := svcs[0].CreateSession(ctx, testUser, "s"+string(rune('a'+i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	page, err := svcs[0].ListSessions(ctx, testUser, "", 2)
	if err != nil || page.NextCursor == nil {
		t.Fatalf("first page: %v %+v", err, page)
	}
	next, err := svcs[1].ListSessions(ctx, testUser, *page.NextCursor, 2)
	if err != nil || len(next.Sessions) != 1 || next.Sessions[0].ID != "sc" {
		t.Fatalf("second page on another replica: %v %+v", err, next)
	}
	if _, err := svcs[1].ListSessions(ctx, Principal{UserID: "someone-else"}, *page.NextCursor, 2); !errors.Is(err, ErrInvalid) {
		t.Fatalf("another user's cursor: %v, want ErrInvalid", err)
	}
}

// downStore is a store whose secrets and session lists do not answer.
type downStore struct{ store.Store }

var errStoreDown = errors.New("store down")

func (downStore) SharedSecret(context.Context, string) ([]byte, error) { return nil, errStoreDown }
func (downStore) ListSessions(context.Context, string, string, int) ([]store.Session, error) {
	return nil, errStoreDown
}

// TestTokenSealerRetriesKeyLoad checks that a failed key load is not kept:
// the next use loads again.
func TestTokenSealerRetriesKeyLoad(t *testing.T) {
	calls := 0
	ts := NewTokenSealer(func(context.Context) ([]byte, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("store down")
		}
		return bytes.Repeat([]byte{7}, 32), nil
	})
	ctx := context.Background()
	if _, err := ts.SealToken(ctx, "k", "u", 1); err == nil || !strings.Contains(err.Error(), "store down") {
		t.Fatalf("first seal: %v, want the store's error", err)
	}
	tok, err := ts.SealToken(ctx, "k", "u", 1)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if ok, err := ts.OpenToken(ctx, tok, "k", "u", &n); !ok || err != nil || n != 1 {
		t.Fatalf("open: %v %v %d", ok, err, n)
	}
	if calls != 2 {
		t.Fatalf("key loaded %d times, want 2 (a failure, then once for good)", calls)
	}
	// A store that does not answer: the key's error, not a refusal.
	st, err := stores.Open(ctx, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := storeService(t, downStore{st})
	if ok, err := s.OpenToken(ctx, tok, "k", "u", &n); ok || err == nil {
		t.Fatalf("open with the store closed: %v %v, want an error", ok, err)
	}
	if _, err := s.ListSessions(ctx, testUser, tok, 10); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("list with the store closed: %v, want ErrUnavailable", err)
	}
}
