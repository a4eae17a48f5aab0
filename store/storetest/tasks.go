package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testTasks is the contract of the store's task operations.
func testTasks(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PutGet":             testTaskPutGet,
		"Versions":           testTaskVersions,
		"ConcurrentVersions": testTaskConcurrentVersions,
		"Isolation":          testTaskIsolation,
		"ListOrderAndPages":  testTaskListPages,
		"ListFilters":        testTaskListFilters,
		"ListManyPages":      testTaskListMany,
	})
	harnessSubtests(t, h, map[string]func(t *testing.T, h Harness){
		"ListWindow": testTaskListWindow,
		"Expiry":     testTaskExpiry,
	})
}

// taskRec is a task record whose JSON names it and its version.
func taskRec(id, contextID, state string, at time.Time, version int64) store.TaskRecord {
	return store.TaskRecord{ID: id, ContextID: contextID, State: state, StatusTime: at, Version: version,
		JSON: fmt.Appendf(nil, `{"id":%q,"state":%q,"v":%d}`, id, state, version)}
}

func mustPutTask(t *testing.T, st store.Store, user string, rec store.TaskRecord) bool {
	t.Helper()
	written, err := st.PutTask(context.Background(), user, rec)
	if err != nil {
		t.Fatalf("PutTask(%q, %q v%d): %v", user, rec.ID, rec.Version, err)
	}
	return written
}

func mustGetTask(t *testing.T, st store.Store, user, id string) (store.TaskRecord, bool) {
	t.Helper()
	rec, found, err := st.GetTask(context.Background(), user, id)
	if err != nil {
		t.Fatalf("GetTask(%q, %q): %v", user, id, err)
	}
	return rec, found
}

func mustListTasks(t *testing.T, st store.Store, user string, q store.TaskQuery) store.TaskPage {
	t.Helper()
	page, err := st.ListTasks(context.Background(), user, q)
	if err != nil {
		t.Fatalf("ListTasks(%q, %+v): %v", user, q, err)
	}
	return page
}

// taskIDs are the IDs of a page's tasks, as "[a b c]".
func taskIDs(page store.TaskPage) string {
	ids := make([]string, len(page.Tasks))
	for i, r := range page.Tasks {
		ids[i] = r.ID
	}
	return fmt.Sprint(ids)
}

func testTaskPutGet(t *testing.T, st store.Store) {
	if _, found := mustGetTask(t, st, "u", "t1"); found {
		t.Fatal("a task that was never put is found")
	}
	at := time.Now().Add(-time.Minute)
	rec := taskRec("t1", "c1", "working", at, 7)
	if !mustPutTask(t, st, "u", rec) {
		t.Fatal("the first put of a task is not written")
	}
	copy(rec.JSON, "XXXX") // the store keeps its own copy
	got, found := mustGetTask(t, st, "u", "t1")
	if !found {
		t.Fatal("the task is not found")
	}
	want := taskRec("t1", "c1", "working", at, 7)
	if got.ID != want.ID || got.ContextID != want.ContextID || got.State != want.State || got.Version != want.Version ||
		string(got.JSON) != string(want.JSON) || got.StatusTime.UnixMilli() != at.UnixMilli() {
		t.Fatalf("got %+v (json %s), want %+v (json %s)", got, got.JSON, want, want.JSON)
	}
	if !got.StatusTime.Equal(time.UnixMilli(at.UnixMilli())) {
		t.Fatalf("status time %v is not %v to the millisecond", got.StatusTime, at)
	}
}

func testTaskVersions(t *testing.T, st store.Store) {
	now := time.Now()
	mustPutTask(t, st, "u", taskRec("t1", "c1", "working", now, 5))
	if mustPutTask(t, st, "u", taskRec("t1", "c1", "submitted", now.Add(-time.Second), 4)) {
		t.Fatal("an older version is written")
	}
	if rec, _ := mustGetTask(t, st, "u", "t1"); rec.Version != 5 || rec.State != "working" {
		t.Fatalf("an older version moved the task back: %+v", rec)
	}
	if !mustPutTask(t, st, "u", taskRec("t1", "c1", "working", now, 5)) {
		t.Fatal("an equal version is not written")
	}
	// A later version moves the task to its new state in every index.
	if !mustPutTask(t, st, "u", taskRec("t1", "c1", "completed", now.Add(time.Second), 6)) {
		t.Fatal("a later version is not written")
	}
	if rec, _ := mustGetTask(t, st, "u", "t1"); rec.Version != 6 || rec.State != "completed" {
		t.Fatalf("after the later version: %+v", rec)
	}
	for _, q := range []store.TaskQuery{{State: "working"}, {ContextID: "c1", State: "working"}} {
		if p := mustListTasks(t, st, "u", q); len(p.Tasks) != 0 || p.Total != 0 {
			t.Fatalf("%+v: the task is still listed under its old state: %s total %d", q, taskIDs(p), p.Total)
		}
	}
	for _, q := range []store.TaskQuery{{}, {State: "completed"}, {ContextID: "c1"}, {ContextID: "c1", State: "completed"}} {
		if p := mustListTasks(t, st, "u", q); taskIDs(p) != "[t1]" || p.Total != 1 || p.Tasks[0].Version != 6 {
			t.Fatalf("%+v: %s total %d, want [t1] at version 6", q, taskIDs(p), p.Total)
		}
	}
	// A task never moves to another context.
	_, err := st.PutTask(context.Background(), "u", taskRec("t1", "c2", "completed", now, 7))
	if !errors.Is(err, store.ErrTaskContext) {
		t.Fatalf("a put in another context: %v, want ErrTaskContext", err)
	}
	if rec, _ := mustGetTask(t, st, "u", "t1"); rec.Version != 6 || rec.ContextID != "c1" {
		t.Fatalf("a refused put changed the task: %+v", rec)
	}
	if p := mustListTasks(t, st, "u", store.TaskQuery{ContextID: "c2"}); len(p.Tasks) != 0 {
		t.Fatalf("a refused put indexed the task in its context: %s", taskIDs(p))
	}
}

// testTaskConcurrentVersions puts the versions of one task from many
// goroutines in a random order: the highest wins, and the task is indexed
// under its state only.
func testTaskConcurrentVersions(t *testing.T, st store.Store) {
	states := []string{"submitted", "working", "input-required", "completed"}
	const versions = 40
	order := rand.Perm(versions)
	now := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, versions)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < versions; i += 4 {
				v := order[i] + 1
				rec := taskRec("t", "c", states[v%len(states)], now.Add(time.Duration(v)*time.Millisecond), int64(v))
				if _, err := st.PutTask(context.Background(), "u", rec); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	final := states[versions%len(states)]
	if rec, _ := mustGetTask(t, st, "u", "t"); rec.Version != versions || rec.State != final {
		t.Fatalf("after concurrent puts: version %d state %q, want %d %q", rec.Version, rec.State, versions, final)
	}
	for _, s := range states {
		want := 0
		if s == final {
			want = 1
		}
		for _, q := range []store.TaskQuery{{State: s}, {ContextID: "c", State: s}} {
			if p := mustListTasks(t, st, "u", q); len(p.Tasks) != want || p.Total != want {
				t.Fatalf("%+v: %s total %d, want %d", q, taskIDs(p), p.Total, want)
			}
		}
	}
}

// testTaskIsolation checks that users are apart, also when their IDs
// contain the characters that separate or tag keys.
func testTaskIsolation(t *testing.T, st store.Store) {
	now := time.Now()
	owners := []struct{ user, id, contextID string }{
		{"a:b", "c", "x"}, {"a", "b:c", "x"}, {"{a}", "b", "x:{y}"}, {"a%3Ab", "c", "x"}, {"a}:{b", "c%", "%7Bx"},
	}
	for i, o := range owners {
		mustPutTask(t, st, o.user, taskRec(o.id, o.contextID, "working", now.Add(time.Duration(i)*time.Millisecond), 1))
	}
	for _, o := range owners {
		rec, found := mustGetTask(t, st, o.user, o.id)
		if !found || rec.ContextID != o.contextID {
			t.Fatalf("%q's task %q: found %v, %+v", o.user, o.id, found, rec)
		}
		for _, q := range []store.TaskQuery{{}, {ContextID: o.contextID}, {State: "working"}, {ContextID: o.contextID, State: "working"}} {
			p := mustListTasks(t, st, o.user, q)
			if taskIDs(p) != "["+o.id+"]" || p.Total != 1 {
				t.Fatalf("%q lists %+v: %s total %d, want only [%s]", o.user, q, taskIDs(p), p.Total, o.id)
			}
		}
		for _, other := range owners {
			if other.user != o.user && other.id != o.id {
				if _, found := mustGetTask(t, st, other.user, o.id); found {
					t.Fatalf("%q sees %q's task %q", other.user, o.user, o.id)
				}
			}
		}
	}
	if _, found := mustGetTask(t, st, "nobody", "c"); found {
		t.Fatal("a user without tasks sees one")
	}
	if p := mustListTasks(t, st, "nobody", store.TaskQuery{}); len(p.Tasks) != 0 || p.Total != 0 || p.Next != nil {
		t.Fatalf("a user without tasks lists %+v", p)
	}
}

// putSeven puts t0 (oldest) .. t6 (newest): even ones in context a and
// completed, odd ones in context b and working; t5 and t6 share a status
// time (ties go by ID). Another user has a task too.
func putSeven(t *testing.T, st store.Store) time.Time {
	base := time.Now().Add(-time.Minute)
	for i := range 7 {
		at := base.Add(time.Duration(i) * time.Second)
		if i == 6 {
			at = base.Add(5 * time.Second)
		}
		contextID, state := "a", "completed"
		if i%2 == 1 {
			contextID, state = "b", "working"
		}
		mustPutTask(t, st, "u", taskRec(fmt.Sprintf("t%d", i), contextID, state, at, 1))
	}
	mustPutTask(t, st, "someone-else", taskRec("x", "a", "completed", base, 1))
	return base
}

// pageAll lists every page of a query and returns the IDs in order.
func pageAll(t *testing.T, st store.Store, user string, q store.TaskQuery, wantTotal int) string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		p := mustListTasks(t, st, user, q)
		if p.Total != wantTotal {
			t.Fatalf("%+v: total %d, want %d", q, p.Total, wantTotal)
		}
		if len(p.Tasks) > max(q.Limit, 1) {
			t.Fatalf("%+v: %d tasks on a page", q, len(p.Tasks))
		}
		for _, r := range p.Tasks {
			ids = append(ids, r.ID)
		}
		if p.Next == nil {
			return strings.Join(ids, " ")
		}
		if len(p.Tasks) == 0 || *p.Next != store.TaskCursorOf(p.Tasks[len(p.Tasks)-1]) {
			t.Fatalf("%+v: next %+v is not the page's last task", q, p.Next)
		}
		if pages > wantTotal {
			t.Fatalf("%+v: paging does not end", q)
		}
		q.Cursor = p.Next
	}
}

func testTaskListPages(t *testing.T, st store.Store) {
	putSeven(t, st)
	for _, limit := range []int{1, 3, 7, 50} {
		if got := pageAll(t, st, "u", store.TaskQuery{Limit: limit}, 7); got != "t6 t5 t4 t3 t2 t1 t0" {
			t.Fatalf("limit %d: order %s", limit, got)
		}
	}
	if p := mustListTasks(t, st, "u", store.TaskQuery{Limit: 0}); len(p.Tasks) != 1 || p.Next == nil {
		t.Fatalf("limit 0 counts as 1: %s next %v", taskIDs(p), p.Next)
	}
	if p := mustListTasks(t, st, "u", store.TaskQuery{Limit: 7}); p.Next != nil {
		t.Fatalf("a page that holds every task has a next cursor %+v", p.Next)
	}
	// Keyset pages: a task that changes after the first page neither
	// repeats nor shifts the next one.
	first := mustListTasks(t, st, "u", store.TaskQuery{Limit: 2})
	mustPutTask(t, st, "u", taskRec("t6", "a", "completed", time.Now(), 2))
	mustPutTask(t, st, "u", taskRec("t9", "b", "working", time.Now(), 1))
	next := mustListTasks(t, st, "u", store.TaskQuery{Limit: 2, Cursor: first.Next})
	if taskIDs(first) != "[t6 t5]" || taskIDs(next) != "[t4 t3]" || next.Total != 8 {
		t.Fatalf("pages %s then %s (total %d), want [t6 t5] then [t4 t3] (total 8)", taskIDs(first), taskIDs(next), next.Total)
	}
}

func testTaskListFilters(t *testing.T, st store.Store) {
	base := putSeven(t, st)
	for _, c := range []struct {
		q     store.TaskQuery
		want  string
		total int
	}{
		{store.TaskQuery{ContextID: "a"}, "t6 t4 t2 t0", 4},
		{store.TaskQuery{State: "working"}, "t5 t3 t1", 3},
		{store.TaskQuery{ContextID: "a", State: "completed"}, "t6 t4 t2 t0", 4},
		{store.TaskQuery{ContextID: "b", State: "completed"}, "", 0},
		{store.TaskQuery{ContextID: "nope"}, "", 0},
		{store.TaskQuery{State: "nope"}, "", 0},
		{store.TaskQuery{After: base.Add(3500 * time.Millisecond)}, "t6 t5 t4", 3},
		{store.TaskQuery{After: base.Add(3 * time.Second)}, "t6 t5 t4", 3}, // strictly after
		{store.TaskQuery{State: "working", After: base.Add(1500 * time.Millisecond)}, "t5 t3", 2},
		{store.TaskQuery{ContextID: "a", State: "completed", After: base.Add(1500 * time.Millisecond)}, "t6 t4 t2", 3},
	} {
		for _, limit := range []int{1, 2, 50} {
			q := c.q
			q.Limit = limit
			if got := pageAll(t, st, "u", q, c.total); got != c.want {
				t.Fatalf("%+v: %q, want %q", q, got, c.want)
			}
		}
	}
}

// testTaskListMany pages through more tasks than one read of an index
// takes, with a filter that skips most of them.
func testTaskListMany(t *testing.T, st store.Store) {
	base := time.Now().Add(-time.Hour)
	var want []string
	for i := range 250 {
		state := "working"
		if i%3 == 0 {
			state = "completed"
		}
		id := fmt.Sprintf("t%03d", i)
		mustPutTask(t, st, "u", taskRec(id, "c", state, base.Add(time.Duration(i)*time.Millisecond), 1))
		if state == "completed" {
			want = append([]string{id}, want...)
		}
	}
	q := store.TaskQuery{ContextID: "c", State: "completed", Limit: 30}
	if got := pageAll(t, st, "u", q, len(want)); got != strings.Join(want, " ") {
		t.Fatalf("completed tasks of c: %s, want %s", got, strings.Join(want, " "))
	}
	if got := pageAll(t, st, "u", store.TaskQuery{Limit: 100}, 250); !strings.HasPrefix(got, "t249 t248") || !strings.HasSuffix(got, "t001 t000") {
		t.Fatalf("every task: %s", got)
	}
}

// testTaskListWindow checks that a list leaves out a task whose status
// time is older than the receipts' lifetime, while GetTask reads it.
func testTaskListWindow(t *testing.T, h Harness) {
	st := h.Open(t, time.Hour)
	mustPutTask(t, st, "u", taskRec("old", "c", "working", time.Now().Add(-2*time.Hour), 1))
	mustPutTask(t, st, "u", taskRec("new", "c", "working", time.Now(), 1))
	if _, found := mustGetTask(t, st, "u", "old"); !found {
		t.Fatal("a task put just now is not found")
	}
	for _, q := range []store.TaskQuery{{}, {ContextID: "c"}, {State: "working"}, {ContextID: "c", State: "working"}} {
		if p := mustListTasks(t, st, "u", q); taskIDs(p) != "[new]" || p.Total != 1 {
			t.Fatalf("%+v: %s total %d, want [new]", q, taskIDs(p), p.Total)
		}
	}
}

// testTaskExpiry checks that a task lasts the receipts' lifetime after
// its last put.
func testTaskExpiry(t *testing.T, h Harness) {
	const ttl = time.Second
	st := h.Open(t, ttl)
	mustPutTask(t, st, "u", taskRec("first", "c", "working", time.Now(), 1))
	mustPutTask(t, st, "u", taskRec("renewed", "c", "working", time.Now(), 1))
	h.Elapse(700 * time.Millisecond)
	mustPutTask(t, st, "u", taskRec("second", "c", "working", time.Now(), 1))
	mustPutTask(t, st, "u", taskRec("renewed", "c", "completed", time.Now(), 2))
	h.Elapse(700 * time.Millisecond)
	if _, found := mustGetTask(t, st, "u", "first"); found {
		t.Fatal("a task is found after the receipts' lifetime")
	}
	for _, id := range []string{"second", "renewed"} {
		if _, found := mustGetTask(t, st, "u", id); !found {
			t.Fatalf("task %s expired before the receipts' lifetime after its last put", id)
		}
	}
	if p := mustListTasks(t, st, "u", store.TaskQuery{Limit: 10}); taskIDs(p) != "[second renewed]" && taskIDs(p) != "[renewed second]" || p.Total != 2 {
		t.Fatalf("after expiry: %s total %d, want second and renewed", taskIDs(p), p.Total)
	}
	if p := mustListTasks(t, st, "u", store.TaskQuery{State: "working"}); taskIDs(p) != "[second]" || p.Total != 1 {
		t.Fatalf("working after expiry: %s total %d, want [second]", taskIDs(p), p.Total)
	}
	// Put again, an expired task starts over at any version.
	if !mustPutTask(t, st, "u", taskRec("first", "other", "working", time.Now(), 0)) {
		t.Fatal("a put of an expired task is skipped")
	}
}
