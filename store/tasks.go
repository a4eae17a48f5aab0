package store

import (
	"context"
	"time"
)

// Tasks are a user's A2A tasks: the transport's record of each task, kept
// as opaque JSON beside the few fields the store indexes, so that any
// replica can get, list, cancel and follow them. A task lasts as long as a
// receipt does after its last put. Owner: the A2A door (a2a).
type Tasks interface {
	// PutTask stores a task record of the user, unless the store holds the
	// same task at a later version: versions never go backwards, so
	// replicas that fold the same response in a different order agree. An
	// equal version overwrites. written is false when the put was skipped.
	// A task keeps the ContextID of its first put: ErrTaskContext refuses
	// a put that names another.
	PutTask(ctx context.Context, user string, rec TaskRecord) (written bool, err error)
	// GetTask reads one of the user's tasks; found is false when the user
	// has no task with that ID (or it expired).
	GetTask(ctx context.Context, user, id string) (rec TaskRecord, found bool, err error)
	// ListTasks returns a page of the user's tasks that match the query,
	// newest status time first (ties by ID, descending), from after the
	// query's cursor: O(log N + page). It leaves out tasks whose status
	// time is older than a receipt's lifetime (GetTask still reads them
	// until they expire).
	ListTasks(ctx context.Context, user string, q TaskQuery) (TaskPage, error)
}

// TaskRecord is one task as stored.
type TaskRecord struct {
	ID        string
	ContextID string
	// State is the task's state (the transport's own names); tasks are
	// listed by it.
	State string
	// StatusTime orders the tasks, newest first; it is kept to the
	// millisecond.
	StatusTime time.Time
	// Version is where the transport's fold of the task stands; a put of
	// a lower version than the stored one is skipped.
	Version int64
	// JSON is the transport's record, kept as it is. Slices the store
	// returns must not be modified.
	JSON []byte
}

// TaskQuery selects a page of a user's tasks.
type TaskQuery struct {
	// ContextID, when set, keeps the tasks of that context only.
	ContextID string
	// State, when set, keeps the tasks in that state only.
	State string
	// After, when set, keeps the tasks whose status time is later (to the
	// millisecond).
	After time.Time
	// Cursor, when set, starts the page after the task it names: the Next
	// of the previous page.
	Cursor *TaskCursor
	// Limit is the most tasks the page holds; below 1 counts as 1.
	Limit int
}

// TaskPage is one page of ListTasks.
type TaskPage struct {
	Tasks []TaskRecord
	// Total is how many of the user's tasks match the query's filters
	// (ContextID, State, After), on every page alike.
	Total int
	// Next is where the next page starts; nil on the last page.
	Next *TaskCursor
}

// TaskCursor is where a page of tasks ended: the last task's status time
// in Unix milliseconds and its ID. A transport hands it out (sealed, so a
// client can neither read nor forge it) and back in TaskQuery.Cursor.
type TaskCursor struct {
	StatusMilli int64  `json:"s"`
	ID          string `json:"i"`
}

// TaskCursorOf is the cursor just past a task record.
func TaskCursorOf(rec TaskRecord) TaskCursor {
	return TaskCursor{StatusMilli: rec.StatusTime.UnixMilli(), ID: rec.ID}
}
