package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testPushConfigs is the contract of the A2A push notification configs.
func testPushConfigs(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(*testing.T, store.Store){
		"CreateGetDelete": testPushCreateGetDelete,
		"ListPages":       testPushListPages,
		"BoundPerTask":    testPushBound,
		"Isolation":       testPushIsolation,
	})
	t.Run("Expiry", func(t *testing.T) { testPushExpiry(t, h) })
}

func mustPutPush(t *testing.T, st store.Store, user, task string, c store.PushConfig) store.PushConfig {
	t.Helper()
	got, err := st.PutPushConfig(ctx, user, task, c, 0)
	if err != nil {
		t.Fatalf("PutPushConfig(%s/%s): %v", user, task, err)
	}
	return got
}

func pushIDs(cs []store.PushConfig) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return fmt.Sprint(out)
}

func testPushCreateGetDelete(t *testing.T, st store.Store) {
	c := store.PushConfig{ID: "cfg1", URL: "https://example.com/hook", Token: "tok", AuthScheme: "Bearer",
		AuthCredentials: "secret", Protocol: "1.0"}
	if got := mustPutPush(t, st, "u", "task", c); got != c {
		t.Fatalf("PutPushConfig returned %+v, want %+v", got, c)
	}
	got, found, err := st.GetPushConfig(ctx, "u", "task", "cfg1")
	if err != nil || !found || got != c {
		t.Fatalf("GetPushConfig = %+v, %v, %v; want %+v", got, found, err, c)
	}
	made := mustPutPush(t, st, "u", "task", store.PushConfig{URL: "https://example.com/2"})
	if made.ID == "" || made.ID == "cfg1" {
		t.Fatalf("a config without an ID got ID %q, want a new one", made.ID)
	}
	c.URL = "https://example.com/replaced"
	mustPutPush(t, st, "u", "task", c)
	if got, _, _ := st.GetPushConfig(ctx, "u", "task", "cfg1"); got.URL != c.URL {
		t.Fatalf("a put with the same ID did not replace the config: %+v", got)
	}
	found, err = st.DeletePushConfig(ctx, "u", "task", "cfg1")
	if err != nil || !found {
		t.Fatalf("DeletePushConfig = %v, %v; want found", found, err)
	}
	if found, err = st.DeletePushConfig(ctx, "u", "task", "cfg1"); err != nil || found {
		t.Fatalf("a second DeletePushConfig = %v, %v; want not found and no error", found, err)
	}
	if _, found, _ := st.GetPushConfig(ctx, "u", "task", "cfg1"); found {
		t.Fatal("a deleted config is still found")
	}
	if cs, _, _ := st.ListPushConfigs(ctx, "u", "task", "", 0); pushIDs(cs) != fmt.Sprint([]string{made.ID}) {
		t.Fatalf("after delete: %s, want only %s", pushIDs(cs), made.ID)
	}
}

func testPushListPages(t *testing.T, st store.Store) {
	for _, id := range []string{"c", "a", "e", "b", "d"} {
		mustPutPush(t, st, "u", "task", store.PushConfig{ID: id, URL: "https://example.com/" + id})
	}
	page, more, err := st.ListPushConfigs(ctx, "u", "task", "", 2)
	if err != nil || pushIDs(page) != "[a b]" || !more {
		t.Fatalf("first page %s more=%v err=%v, want [a b] and more", pushIDs(page), more, err)
	}
	page, more, _ = st.ListPushConfigs(ctx, "u", "task", "b", 2)
	if pushIDs(page) != "[c d]" || !more {
		t.Fatalf("second page %s more=%v, want [c d] and more", pushIDs(page), more)
	}
	page, more, _ = st.ListPushConfigs(ctx, "u", "task", "d", 2)
	if pushIDs(page) != "[e]" || more {
		t.Fatalf("last page %s more=%v, want [e] and no more", pushIDs(page), more)
	}
	page, more, _ = st.ListPushConfigs(ctx, "u", "none", "", 2)
	if page == nil || len(page) != 0 || more {
		t.Fatalf("a task without configs lists %v more=%v, want an empty page", page, more)
	}
}

func testPushBound(t *testing.T, st store.Store) {
	for i := range 3 {
		if _, err := st.PutPushConfig(ctx, "u", "task", store.PushConfig{ID: fmt.Sprint(i), URL: "https://x"}, 3); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.PutPushConfig(ctx, "u", "task", store.PushConfig{ID: "new", URL: "https://x"}, 3); !errors.Is(err, store.ErrPushConfigsFull) {
		t.Fatalf("a fourth config with a bound of 3: %v, want ErrPushConfigsFull", err)
	}
	if _, err := st.PutPushConfig(ctx, "u", "task", store.PushConfig{ID: "1", URL: "https://y"}, 3); err != nil {
		t.Fatalf("replacing a config of a full task: %v", err)
	}
	if _, err := st.PutPushConfig(ctx, "u", "other", store.PushConfig{ID: "new", URL: "https://x"}, 3); err != nil {
		t.Fatalf("another task's config: %v", err)
	}
}

func testPushIsolation(t *testing.T, st store.Store) {
	mustPutPush(t, st, "u:1", "t{1}", store.PushConfig{ID: "c", URL: "https://a"})
	mustPutPush(t, st, "u", "1:t{1}", store.PushConfig{ID: "c", URL: "https://b"})
	if c, found, _ := st.GetPushConfig(ctx, "u:1", "t{1}", "c"); !found || c.URL != "https://a" {
		t.Fatalf("u:1's config is %+v (found %v), want https://a", c, found)
	}
	if _, found, _ := st.GetPushConfig(ctx, "other", "t{1}", "c"); found {
		t.Fatal("another user reads the config")
	}
}

func testPushExpiry(t *testing.T, h Harness) {
	st := h.Open(t, time.Second)
	mustPutPush(t, st, "u", "task", store.PushConfig{ID: "c", URL: "https://a"})
	h.Elapse(1200 * time.Millisecond)
	if _, found, _ := st.GetPushConfig(ctx, "u", "task", "c"); found {
		t.Fatal("a config is found after the receipts' lifetime")
	}
}
