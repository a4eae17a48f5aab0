package memstore

import (
	"context"
	"crypto/rand"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// pushSpace is the in-process store's A2A push notification configs: per
// user and task, the configs by ID. A task's configs expire ttl after the
// last put of any of them, as the Redis store's hash does.
type pushSpace struct {
	now    func() time.Time
	ttl    time.Duration
	closed *closedFlag

	mu    sync.Mutex
	tasks map[pushTaskKey]*pushTask
}

type pushTaskKey struct{ user, task string }

type pushTask struct {
	configs map[string]store.PushConfig
	expires time.Time
}

func newPushSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *pushSpace {
	return &pushSpace{now: now, ttl: ttl, closed: closed, tasks: map[pushTaskKey]*pushTask{}}
}

// lockTask locks the space and returns a task's live configs (nil when
// none); the caller unlocks the space. Once the store is closed it
// returns ErrClosed and locks nothing.
func (p *pushSpace) lockTask(user, taskID string) (*pushTask, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	k := pushTaskKey{user, taskID}
	t := p.tasks[k]
	if t != nil && !t.expires.After(p.now()) {
		delete(p.tasks, k)
		return nil, nil
	}
	return t, nil
}

// PutPushConfig creates or replaces a config.
func (p *pushSpace) PutPushConfig(ctx context.Context, user, taskID string, c store.PushConfig, maxPerTask int) (store.PushConfig, error) {
	t, err := p.lockTask(user, taskID)
	if err != nil {
		return c, err
	}
	defer p.mu.Unlock()
	if t == nil {
		t = &pushTask{configs: map[string]store.PushConfig{}}
		p.tasks[pushTaskKey{user, taskID}] = t
	}
	if c.ID == "" {
		c.ID = strings.ToLower(rand.Text())
	}
	if _, exists := t.configs[c.ID]; !exists && maxPerTask > 0 && len(t.configs) >= maxPerTask {
		return c, store.ErrPushConfigsFull
	}
	t.configs[c.ID] = c
	t.expires = p.now().Add(p.ttl)
	return c, nil
}

// GetPushConfig reads one config.
func (p *pushSpace) GetPushConfig(ctx context.Context, user, taskID, id string) (store.PushConfig, bool, error) {
	t, err := p.lockTask(user, taskID)
	if err != nil {
		return store.PushConfig{}, false, err
	}
	defer p.mu.Unlock()
	if t != nil {
		c, ok := t.configs[id]
		return c, ok, nil
	}
	return store.PushConfig{}, false, nil
}

// ListPushConfigs returns a page of a task's configs in ID order.
func (p *pushSpace) ListPushConfigs(ctx context.Context, user, taskID, after string, limit int) ([]store.PushConfig, bool, error) {
	t, err := p.lockTask(user, taskID)
	if err != nil {
		return nil, false, err
	}
	defer p.mu.Unlock()
	out := []store.PushConfig{}
	if t == nil {
		return out, false, nil
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range t.configs {
			if id > after && !yield(id) {
				return
			}
		}
	})
	for i, id := range ids {
		if limit > 0 && i == limit {
			return out, true, nil
		}
		out = append(out, t.configs[id])
	}
	return out, false, nil
}

// DeletePushConfig removes a config.
func (p *pushSpace) DeletePushConfig(ctx context.Context, user, taskID, id string) (bool, error) {
	t, err := p.lockTask(user, taskID)
	if err != nil {
		return false, err
	}
	defer p.mu.Unlock()
	if t == nil {
		return false, nil
	}
	_, found := t.configs[id]
	delete(t.configs, id)
	if len(t.configs) == 0 {
		delete(p.tasks, pushTaskKey{user, taskID})
	}
	return found, nil
}

// close drops every config.
func (p *pushSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tasks = map[pushTaskKey]*pushTask{}
}
