package a2a

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store/stores"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// eachTaskStore runs fn with a task store on each store, whose page tokens
// a Service seals.
func eachTaskStore(t *testing.T, fn func(t *testing.T, s *taskStore)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			st, err := stores.Open(context.Background(), stores.Options{URL: c.URL, KeyPrefix: testutil.Prefix(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			fn(t, &taskStore{st: st, svc: idleService(st)})
		})
	}
}

// idleService is a Service on the store whose agent does nothing.
func idleService(st store.Store) *runtime.Service {
	return runtime.New(runtime.Options{Store: st, Agent: runtime.AgentFunc(func(context.Context, *runtime.Turn, runtime.Emit) error { return nil })})
}

// taskAt is a stored-task mapper in a state at a time.
func taskAt(id, ctx, state string, at time.Time, seq int) *mapper {
	m := newMapper(Task{ID: id, ContextID: ctx, Status: TaskStatus{State: state, Timestamp: stamp(at)},
		History:   []Message{{MessageID: id + "-m", Role: roleUser, Parts: []Part{textPart("hi")}}},
		Artifacts: []Artifact{{ArtifactID: id + "-response", Parts: []Part{textPart("out")}}}}, time.Now)
	m.seq = seq
	return m
}

func TestTaskStoreVersions(t *testing.T) {
	eachTaskStore(t, func(t *testing.T, s *taskStore) {
		ctx := context.Background()
		now := time.Now()
		if err := s.put(ctx, "u", taskAt("t1", "c1", stateWorking, now, 5)); err != nil {
			t.Fatal(err)
		}
		// An older fold does not move the task back.
		if err := s.put(ctx, "u", taskAt("t1", "c1", stateSubmitted, now, 2)); err != nil {
			t.Fatal(err)
		}
		rec, found, err := s.get(ctx, "u", "t1")
		if err != nil || !found || rec.Task.Status.State != stateWorking || rec.Seq != 5 {
			t.Fatalf("get: %v %v %+v", err, found, rec)
		}
		// A resume recorded after the same event wins over that event.
		m := taskAt("t1", "c1", stateInputRequired, now, 5)
		if err := s.put(ctx, "u", m); err != nil {
			t.Fatal(err)
		}
		m.resume(Message{MessageID: "answer", Role: roleUser, Parts: []Part{textPart("approve")}})
		if err := s.put(ctx, "u", m); err != nil {
			t.Fatal(err)
		}
		if err := s.put(ctx, "u", taskAt("t1", "c1", stateInputRequired, now, 5)); err != nil {
			t.Fatal(err)
		}
		rec, _, _ = s.get(ctx, "u", "t1")
		if rec.Task.Status.State != stateWorking || rec.Sub != 1 || len(rec.Task.History) != 2 {
			t.Fatalf("after resume: %+v", rec)
		}
		// Owners are separate.
		if _, found, _ := s.get(ctx, "other", "t1"); found {
			t.Fatal("another user sees the task")
		}
		l, err := s.list(ctx, "u", listRequest{Status: stateInputRequired, PageSize: 50})
		if err != nil || len(l.Tasks) != 0 || l.TotalSize != 0 {
			t.Fatalf("the task is still indexed under its old state: %v %+v", err, l)
		}
	})
}

func TestTaskStoreList(t *testing.T) {
	eachTaskStore(t, func(t *testing.T, s *taskStore) {
		ctx := context.Background()
		base := time.Now().Add(-time.Minute)
		// 7 tasks: t0 oldest .. t6 newest; even ones in context a and
		// completed, odd ones in context b and working; t5 and t6 share a
		// timestamp (ties go by ID).
		for i := 0; i < 7; i++ {
			at := base.Add(time.Duration(i) * time.Second)
			if i == 6 {
				at = base.Add(5 * time.Second)
			}
			ctxID, state := "a", stateCompleted
			if i%2 == 1 {
				ctxID, state = "b", stateWorking
			}
			if err := s.put(ctx, "u", taskAt(fmt.Sprintf("t%d", i), ctxID, state, at, 1)); err != nil {
				t.Fatal(err)
			}
		}
		_ = s.put(ctx, "someone-else", taskAt("x", "a", stateCompleted, base, 1))

		var ids []string
		token := ""
		for pages := 0; ; pages++ {
			l, err := s.list(ctx, "u", listRequest{PageSize: 3, PageToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if l.TotalSize != 7 || l.PageSize != 3 {
				t.Fatalf("totalSize %d pageSize %d", l.TotalSize, l.PageSize)
			}
			for _, task := range l.Tasks {
				ids = append(ids, task.ID)
				if task.Artifacts != nil {
					t.Fatal("artifacts listed without includeArtifacts")
				}
			}
			if l.NextPageToken == "" {
				break
			}
			token = l.NextPageToken
			if pages > 5 {
				t.Fatal("paging does not end")
			}
		}
		want := "[t6 t5 t4 t3 t2 t1 t0]"
		if fmt.Sprint(ids) != want {
			t.Fatalf("order %v, want %s", ids, want)
		}

		check := func(q listRequest, want string, total int) {
			t.Helper()
			if q.PageSize == 0 {
				q.PageSize = 50
			}
			l, err := s.list(ctx, "u", q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, task := range l.Tasks {
				got = append(got, task.ID)
			}
			if fmt.Sprint(got) != want || l.TotalSize != total {
				t.Fatalf("%+v: got %v (total %d), want %s (total %d)", q, got, l.TotalSize, want, total)
			}
		}
		check(listRequest{ContextID: "a"}, "[t6 t4 t2 t0]", 4)
		check(listRequest{Status: stateWorking}, "[t5 t3 t1]", 3)
		check(listRequest{ContextID: "a", Status: stateCompleted}, "[t6 t4 t2 t0]", 4)
		check(listRequest{ContextID: "b", Status: stateCompleted}, "[]", 0)
		check(listRequest{After: base.Add(3500 * time.Millisecond)}, "[t6 t5 t4]", 3)
		check(listRequest{Status: stateWorking, After: base.Add(1500 * time.Millisecond)}, "[t5 t3]", 2)

		zero := 0
		l, _ := s.list(ctx, "u", listRequest{PageSize: 1, HistoryLength: &zero, IncludeArtifacts: true})
		if len(l.Tasks) != 1 || l.Tasks[0].History != nil || len(l.Tasks[0].Artifacts) != 1 {
			t.Fatalf("historyLength 0 with artifacts: %+v", l.Tasks)
		}
		if _, err := s.list(ctx, "u", listRequest{PageSize: 1, PageToken: "garbage"}); err == nil {
			t.Fatal("a bad page token is accepted")
		}
	})
}
