package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Tasks are kept in the store per owner (store.Tasks), so that any replica
// can get, list, cancel and follow them. The store holds each task's
// record as JSON beside the fields it indexes: its context, state and
// status time. A put carries the record's version (mapper.version) and is
// skipped when the store holds a later one, so replicas that fold the same
// response never move a task backwards.

// record is a task as stored: the snapshot and where its fold stands.
type record struct {
	Task Task     `json:"task"`
	Seq  int      `json:"seq"`
	Sub  int      `json:"sub,omitempty"`
	Wait *waitRef `json:"wait,omitempty"`
}

func (r record) mapper(now func() time.Time) *mapper {
	return &mapper{task: r.Task, seq: r.Seq, sub: r.Sub, wait: r.Wait, now: now}
}

func recordOf(m *mapper) record {
	return record{Task: m.task, Seq: m.seq, Sub: m.sub, Wait: m.wait}
}

// taskStore reads and writes tasks through the store, and seals the page
// tokens of lists through the Service, so that every cursor the server
// issues is sealed the same way with the same key.
type taskStore struct {
	st  store.Tasks
	svc *runtime.Service
}

// statusTime is when a task's status was set (its list order); the zero
// time when the timestamp does not parse.
func statusTime(t Task) time.Time {
	at, err := time.Parse(time.RFC3339Nano, t.Status.Timestamp)
	if err != nil {
		return time.Time{}
	}
	return at
}

// put stores a record at its version.
func (s *taskStore) put(ctx context.Context, user string, m *mapper) error {
	rec := recordOf(m)
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("a2a: encode task: %w", err)
	}
	_, err = s.st.PutTask(ctx, user, store.TaskRecord{
		ID: rec.Task.ID, ContextID: rec.Task.ContextID, State: rec.Task.Status.State,
		StatusTime: statusTime(rec.Task), Version: m.version(), JSON: b,
	})
	if err != nil {
		return fmt.Errorf("a2a: store task: %w", err)
	}
	return nil
}

// get reads one of the user's tasks; found is false when it does not exist
// (or belongs to someone else).
func (s *taskStore) get(ctx context.Context, user, id string) (rec record, found bool, err error) {
	stored, found, err := s.st.GetTask(ctx, user, id)
	if err != nil {
		return rec, false, fmt.Errorf("a2a: read task: %w", err)
	}
	if !found {
		return rec, false, nil
	}
	if err := json.Unmarshal(stored.JSON, &rec); err != nil {
		return rec, false, fmt.Errorf("a2a: decode task %q: %w", id, err)
	}
	return rec, true, nil
}

// pageTokenKind is the sealed kind of a ListTasks page token. The token
// seals the store's cursor (the last task's status time and ID) for its
// user, so a client can neither read nor forge it, and another user's
// token is refused like a malformed one.
const pageTokenKind = "a2a.tasks"

// errBadPageToken is the answer to a page token this server did not issue
// to this user.
func errBadPageToken() *Error {
	return errInvalidParams("pageToken is not a token this server issued")
}

// list returns a page of the user's tasks, newest status first.
func (s *taskStore) list(ctx context.Context, user string, q listRequest) (listResult, error) {
	query := store.TaskQuery{ContextID: q.ContextID, State: q.Status, After: q.After, Limit: q.PageSize}
	if q.PageToken != "" {
		var cursor store.TaskCursor
		ok, err := s.svc.OpenToken(ctx, q.PageToken, pageTokenKind, user, &cursor)
		if err != nil {
			return listResult{}, fmt.Errorf("a2a: open page token: %w", err)
		}
		if !ok || cursor.ID == "" {
			return listResult{}, errBadPageToken()
		}
		query.Cursor = &cursor
	}
	page, err := s.st.ListTasks(ctx, user, query)
	if err != nil {
		return listResult{}, fmt.Errorf("a2a: list tasks: %w", err)
	}
	out := listResult{Tasks: make([]Task, 0, len(page.Tasks)), PageSize: q.PageSize, TotalSize: page.Total}
	for _, stored := range page.Tasks {
		var rec record
		if err := json.Unmarshal(stored.JSON, &rec); err != nil {
			return listResult{}, fmt.Errorf("a2a: decode task %q: %w", stored.ID, err)
		}
		t := rec.Task.withHistory(q.HistoryLength)
		if !q.IncludeArtifacts {
			t.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, t)
	}
	if page.Next != nil {
		tok, err := s.svc.SealToken(ctx, pageTokenKind, user, *page.Next)
		if err != nil {
			return out, fmt.Errorf("a2a: seal page token: %w", err)
		}
		out.NextPageToken = tok
	}
	return out, nil
}
