package memstore

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/google/btree"

	"github.com/harnest/harnest/store"
)

// tasksSpace is the in-process store's A2A tasks: per user, a map of the
// records and ordered indexes of them (all, per context, per state, per
// context and state), newest status time first, so that every list is a
// seek and a walk of one page. One B-tree of expiry times drops each task
// ttl after its last put; every operation drops what expired first, so
// reads never see an expired task.
type tasksSpace struct {
	now    func() time.Time
	ttl    time.Duration
	closed *closedFlag // the store's: set by Close

	mu     sync.Mutex
	users  map[string]*userTasks
	expiry *btree.BTreeG[taskExpiry]
	// nodes is the free list every index shares (a tree of its own
	// would keep a list per context).
	nodes *btree.FreeListG[taskEntry]
}

// userTasks are one user's tasks and their indexes. An index that becomes
// empty is dropped.
type userTasks struct {
	nodes          *btree.FreeListG[taskEntry]
	tasks          map[string]*storedTask
	all            *btree.BTreeG[taskEntry]
	byContext      map[string]*btree.BTreeG[taskEntry]
	byState        map[string]*btree.BTreeG[taskEntry]
	byContextState map[[2]string]*btree.BTreeG[taskEntry]
}

// storedTask is a record with the time it expires.
type storedTask struct {
	rec     store.TaskRecord
	expires int64 // Unix nanoseconds
}

// taskEntry is a task in an index: its status time in Unix milliseconds
// and its ID.
type taskEntry struct {
	score int64
	id    string
}

// taskNewer orders index entries newest first, ties by ID descending (as
// a Redis ZSET read in reverse).
func taskNewer(a, b taskEntry) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id > b.id
}

// taskExpiry is a task in the expiry tree, soonest first.
type taskExpiry struct {
	at       int64 // Unix nanoseconds
	user, id string
}

func taskExpiresFirst(a, b taskExpiry) bool {
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.user, b.user), cmp.Compare(a.id, b.id)) < 0
}

// taskTreeDegree is the degree of the task B-trees.
const taskTreeDegree = 16

// newTaskIndex makes an empty index on the shared free list.
func newTaskIndex(nodes *btree.FreeListG[taskEntry]) *btree.BTreeG[taskEntry] {
	return btree.NewWithFreeListG(taskTreeDegree, taskNewer, nodes)
}

// newTasksSpace makes the tasks part; tasks last ttl after their last put.
func newTasksSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *tasksSpace {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &tasksSpace{now: now, ttl: ttl, closed: closed, users: map[string]*userTasks{},
		expiry: btree.NewG(taskTreeDegree, taskExpiresFirst),
		nodes:  btree.NewFreeListG[taskEntry](btree.DefaultFreeListSize)}
}

// sweep drops the tasks that expired before now.
func (p *tasksSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
}

// close drops every task (the part has no goroutines).
func (p *tasksSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.users = map[string]*userTasks{}
	p.expiry.Clear(false)
}

// dropExpired removes every task whose expiry time is not after now.
// The caller holds p.mu.
func (p *tasksSpace) dropExpired(now time.Time) {
	for {
		e, ok := p.expiry.Min()
		if !ok || e.at > now.UnixNano() {
			return
		}
		p.expiry.DeleteMin()
		if u := p.users[e.user]; u != nil {
			if t := u.tasks[e.id]; t != nil {
				u.unindex(t.rec)
				delete(u.tasks, e.id)
				if len(u.tasks) == 0 {
					delete(p.users, e.user)
				}
			}
		}
	}
}

// PutTask stores a task record unless a later version is stored.
func (p *tasksSpace) PutTask(ctx context.Context, user string, rec store.TaskRecord) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	u := p.users[user]
	if u == nil {
		u = &userTasks{nodes: p.nodes, tasks: map[string]*storedTask{}, all: newTaskIndex(p.nodes),
			byContext: map[string]*btree.BTreeG[taskEntry]{}, byState: map[string]*btree.BTreeG[taskEntry]{},
			byContextState: map[[2]string]*btree.BTreeG[taskEntry]{}}
		p.users[user] = u
	}
	if old := u.tasks[rec.ID]; old != nil {
		if old.rec.Version > rec.Version {
			return false, nil
		}
		if old.rec.ContextID != rec.ContextID {
			return false, store.ErrTaskContext
		}
		u.unindex(old.rec)
		p.expiry.Delete(taskExpiry{at: old.expires, user: user, id: rec.ID})
	}
	rec.JSON = append([]byte(nil), rec.JSON...) // the caller may reuse its slice
	rec.StatusTime = time.UnixMilli(rec.StatusTime.UnixMilli())
	t := &storedTask{rec: rec, expires: now.Add(p.ttl).UnixNano()}
	u.tasks[rec.ID] = t
	u.index(rec)
	p.expiry.ReplaceOrInsert(taskExpiry{at: t.expires, user: user, id: rec.ID})
	return true, nil
}

// GetTask reads one of the user's tasks.
func (p *tasksSpace) GetTask(ctx context.Context, user, id string) (store.TaskRecord, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.TaskRecord{}, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	if u := p.users[user]; u != nil {
		if t := u.tasks[id]; t != nil {
			return t.rec, true, nil
		}
	}
	return store.TaskRecord{}, false, nil
}

// ListTasks returns a page of the user's tasks, newest status time first.
// Like the Redis store, it reads only tasks whose status time is within
// the TTL.
func (p *tasksSpace) ListTasks(ctx context.Context, user string, q store.TaskQuery) (store.TaskPage, error) {
	if err := p.closed.check(); err != nil {
		return store.TaskPage{}, err
	}
	now := p.now()
	limit := max(q.Limit, 1)
	lowest := now.Add(-p.ttl).UnixMilli()
	if !q.After.IsZero() {
		lowest = max(lowest, q.After.UnixMilli()+1)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	page := store.TaskPage{Tasks: []store.TaskRecord{}}
	u := p.users[user]
	if u == nil {
		return page, nil
	}
	index := u.indexFor(q.ContextID, q.State)
	if index == nil {
		return page, nil
	}
	page.Total = countFrom(index, lowest, !q.After.IsZero())
	page.Tasks = make([]store.TaskRecord, 0, min(limit, page.Total))

	walk := func(e taskEntry) bool {
		if e.score < lowest {
			return false
		}
		if c := q.Cursor; c != nil && e.score == c.StatusMilli && e.id == c.ID {
			return true // the cursor's own task ended the previous page
		}
		if len(page.Tasks) == limit {
			next := store.TaskCursorOf(page.Tasks[limit-1])
			page.Next = &next
			return false
		}
		page.Tasks = append(page.Tasks, u.tasks[e.id].rec)
		return true
	}
	if c := q.Cursor; c != nil {
		index.AscendGreaterOrEqual(taskEntry{score: c.StatusMilli, id: c.ID}, walk)
	} else {
		index.Ascend(walk)
	}
	return page, nil
}

// countFrom counts the entries of an index with a score of at least
// lowest. After a statusTimestampAfter filter (fromTop) it walks those
// entries; otherwise lowest is the TTL's bound and it walks the old tail
// below it, which the expiry keeps short.
func countFrom(index *btree.BTreeG[taskEntry], lowest int64, fromTop bool) int {
	n := 0
	if fromTop {
		index.Ascend(func(e taskEntry) bool {
			if e.score < lowest {
				return false
			}
			n++
			return true
		})
		return n
	}
	index.Descend(func(e taskEntry) bool {
		if e.score >= lowest {
			return false
		}
		n++
		return true
	})
	return index.Len() - n
}

// indexFor is the index that answers a query's filters; nil when none
// matches.
func (u *userTasks) indexFor(contextID, state string) *btree.BTreeG[taskEntry] {
	switch {
	case contextID != "" && state != "":
		return u.byContextState[[2]string{contextID, state}]
	case contextID != "":
		return u.byContext[contextID]
	case state != "":
		return u.byState[state]
	}
	return u.all
}

// index adds a record to the user's indexes.
func (u *userTasks) index(rec store.TaskRecord) {
	e := taskEntry{score: rec.StatusTime.UnixMilli(), id: rec.ID}
	u.all.ReplaceOrInsert(e)
	addTaskEntry(u, u.byContext, rec.ContextID, e)
	addTaskEntry(u, u.byState, rec.State, e)
	addTaskEntry(u, u.byContextState, [2]string{rec.ContextID, rec.State}, e)
}

// unindex removes a record from the user's indexes.
func (u *userTasks) unindex(rec store.TaskRecord) {
	e := taskEntry{score: rec.StatusTime.UnixMilli(), id: rec.ID}
	u.all.Delete(e)
	removeTaskEntry(u.byContext, rec.ContextID, e)
	removeTaskEntry(u.byState, rec.State, e)
	removeTaskEntry(u.byContextState, [2]string{rec.ContextID, rec.State}, e)
}

// addTaskEntry adds an entry to the index of key, made when missing.
func addTaskEntry[K comparable](u *userTasks, indexes map[K]*btree.BTreeG[taskEntry], key K, e taskEntry) {
	index := indexes[key]
	if index == nil {
		index = newTaskIndex(u.nodes)
		indexes[key] = index
	}
	index.ReplaceOrInsert(e)
}

// removeTaskEntry removes an entry from the index of key, and drops the
// index when it becomes empty.
func removeTaskEntry[K comparable](indexes map[K]*btree.BTreeG[taskEntry], key K, e taskEntry) {
	if index := indexes[key]; index != nil {
		index.Delete(e)
		if index.Len() == 0 {
			delete(indexes, key)
		}
	}
}
