package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Push notifications: a task's configs (store.PushConfigs) say where its
// updates go. Every update this replica folds is put in the outbox once
// per config (outbox.Dispatcher), in order per config, and whichever
// replica claims it posts it, signed (push_sign.go):
//
//   - a config made over 1.0 gets the StreamResponse ({"statusUpdate": ...}
//     or {"artifactUpdate": ...}, the task itself first) as
//     application/a2a+json; one made over 0.3 gets the whole task in the
//     0.3 JSON-RPC shape (kind "task");
//   - the config's token in X-A2A-Notification-Token (and
//     A2A-Notification-Token, the name a2a-go v2 reads);
//   - its authentication as Authorization: <scheme> <credentials>;
//   - the server's JWT over the body in A2A-Notification-Signature, and in
//     Authorization as a Bearer token when the config has no
//     authentication of its own.

// DeliveryPush is the outbox kind of A2A push notifications.
const DeliveryPush = "a2a.push"

// maxPushConfigs bounds the configs of one task.
const maxPushConfigs = 10

// pushCacheTTL is how long a task's configs are reused for its updates
// before the store is read again (a config made on another replica is seen
// within it).
const pushCacheTTL = time.Second

// pushState is the server's push notification part; nil when the server
// has no outbox (push notifications are not offered).
type pushState struct {
	outbox *outbox.Dispatcher
	st     store.PushConfigs
	keys   *pushKeys

	mu     sync.Mutex
	cache  map[string]pushCacheEntry // user + "\x00" + task
	swept  time.Time                 // when stale entries were last dropped
	misses int                       // store reads of configs, counted for the tests
}

// pushStore is what push notifications keep: the tasks' configs, and the
// secret their signing key is made from.
type pushStore interface {
	store.PushConfigs
	store.Secrets
}

type pushCacheEntry struct {
	configs []store.PushConfig
	at      time.Time
}

// newPushState makes the push part, and registers its signer with the
// outbox; nil without an outbox, or when the card turns push off.
func newPushState(sender *outbox.Dispatcher, st pushStore, offered bool) *pushState {
	if sender == nil || !offered {
		return nil
	}
	ps := &pushState{outbox: sender, st: st, keys: newPushKeys(st), cache: map[string]pushCacheEntry{}}
	sender.Sign(DeliveryPush, ps.keys.sign)
	return ps
}

func pushCacheKey(user, task string) string { return user + "\x00" + task }

// configs are a task's configs, from the cache when it is fresh.
func (ps *pushState) configs(ctx context.Context, user, task string, now time.Time) ([]store.PushConfig, error) {
	k := pushCacheKey(user, task)
	ps.mu.Lock()
	e, ok := ps.cache[k]
	ps.mu.Unlock()
	if ok && now.Sub(e.at) < pushCacheTTL {
		return e.configs, nil
	}
	cs, _, err := ps.st.ListPushConfigs(ctx, user, task, "", 0)
	if err != nil {
		return nil, err
	}
	ps.mu.Lock()
	ps.misses++
	ps.keepLocked(k, cs, now)
	ps.mu.Unlock()
	return cs, nil
}

// known records the configs of a task this replica has just made (none,
// or the one its send carried): no other replica could have added one
// before the task was stored, so its first updates need no store read. A
// config another replica adds later is seen once the entry is older than
// pushCacheTTL, as for any cached entry; one added or deleted here drops
// the entry at once (forget). Nil-safe.
func (ps *pushState) known(user, task string, configs []store.PushConfig, now time.Time) {
	if ps == nil {
		return
	}
	ps.mu.Lock()
	ps.keepLocked(pushCacheKey(user, task), configs, now)
	ps.mu.Unlock()
}

// keepLocked caches a task's configs; stale entries are dropped at most
// once per pushCacheTTL, which keeps the cache to the tasks of the last
// two TTLs.
func (ps *pushState) keepLocked(k string, configs []store.PushConfig, now time.Time) {
	if now.Sub(ps.swept) >= pushCacheTTL {
		for key, old := range ps.cache {
			if now.Sub(old.at) >= pushCacheTTL {
				delete(ps.cache, key)
			}
		}
		ps.swept = now
	}
	ps.cache[k] = pushCacheEntry{configs: configs, at: now}
}

// forget drops a task's cached configs (they changed here).
func (ps *pushState) forget(user, task string) {
	ps.mu.Lock()
	delete(ps.cache, pushCacheKey(user, task))
	ps.mu.Unlock()
}

// taskUpdated is told of every update of a task this replica folds, after
// the feed has it: each of the task's configs gets it.
func (s *Server) taskUpdated(p runtime.Principal, m *mapper, e StreamEvent) {
	if s.push == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := s.push.configs(ctx, p.UserID, m.task.ID, s.now())
	if err != nil {
		s.log.Warn("a2a: cannot read push configs; the update is not notified", "taskId", m.task.ID, "err", err)
		return
	}
	for _, c := range cs {
		s.notify(ctx, p, m.task, e, c)
	}
}

// notify puts one update in the outbox for one config.
func (s *Server) notify(ctx context.Context, p runtime.Principal, t Task, e StreamEvent, c store.PushConfig) {
	var body []byte
	var err error
	headers := map[string]string{}
	if c.Protocol == v03 {
		body, err = json.Marshal(codec03{}.task(t.clone()))
	} else {
		body, err = json.Marshal(e)
		headers["Content-Type"] = "application/a2a+json"
	}
	if err != nil {
		s.log.Warn("a2a: cannot encode a push notification", "taskId", t.ID, "err", err)
		return
	}
	if c.Token != "" {
		headers["X-A2A-Notification-Token"] = c.Token
		headers["A2A-Notification-Token"] = c.Token
	}
	if c.AuthScheme != "" && c.AuthCredentials != "" {
		headers["Authorization"] = c.AuthScheme + " " + c.AuthCredentials
	}
	d := store.Delivery{User: p.UserID, Key: "a2a/" + t.ID + "/" + c.ID, Kind: DeliveryPush, URL: c.URL, Headers: headers, Body: body}
	if err := s.push.outbox.Enqueue(ctx, d); err != nil {
		s.log.Warn("a2a: cannot enqueue a push notification", "taskId", t.ID, "configId", c.ID, "err", err)
	}
}

// checkPushConfig validates a config from a client: a URL the outbox can
// deliver to, and a token and credentials that fit in a header.
func (s *Server) checkPushConfig(c store.PushConfig) error {
	if strings.TrimSpace(c.URL) == "" {
		return invalidf("url is required")
	}
	if err := s.push.outbox.CheckURL(c.URL); err != nil {
		return invalidf("url %s", err.Error())
	}
	for _, v := range []struct{ name, value string }{{"id", c.ID}, {"token", c.Token},
		{"authentication.scheme", c.AuthScheme}, {"authentication.credentials", c.AuthCredentials}} {
		if strings.ContainsAny(v.value, "\r\n\x00") {
			return invalidf("%s must not hold line breaks", v.name)
		}
		if len(v.value) > 4096 {
			return invalidf("%s is longer than 4096 bytes", v.name)
		}
	}
	if len(c.ID) > maxIDLength || strings.Contains(c.ID, "/") {
		return invalidf("id must be at most %d characters, without a slash", maxIDLength)
	}
	if c.AuthCredentials != "" && c.AuthScheme == "" {
		return invalidf("authentication.scheme is required with credentials")
	}
	return nil
}

// pushEnabled refuses push operations on a server without an outbox.
func (s *Server) pushEnabled() error {
	if s.push == nil {
		return errPushNotSupported()
	}
	return nil
}

// taskExists checks that the user has the task.
func (s *Server) taskExists(ctx context.Context, p runtime.Principal, id string) error {
	if strings.TrimSpace(id) == "" {
		return invalidf("the task ID is required")
	}
	if _, found, err := s.tasks.get(ctx, p.UserID, id); err != nil {
		return errUnavailable("The state store is unavailable; retry shortly")
	} else if !found {
		return errTaskNotFound(id)
	}
	return nil
}

// createPush stores a config of one of the user's tasks.
func (s *Server) createPush(ctx context.Context, p runtime.Principal, taskID string, c store.PushConfig) (store.PushConfig, error) {
	if err := s.pushEnabled(); err != nil {
		return c, err
	}
	if err := s.taskExists(ctx, p, taskID); err != nil {
		return c, err
	}
	return s.putPush(ctx, p, taskID, c)
}

// putPush checks and stores a config of a task known to exist.
func (s *Server) putPush(ctx context.Context, p runtime.Principal, taskID string, c store.PushConfig) (store.PushConfig, error) {
	if err := s.checkPushConfig(c); err != nil {
		return c, err
	}
	stored, err := s.push.st.PutPushConfig(ctx, p.UserID, taskID, c, maxPushConfigs)
	if errors.Is(err, store.ErrPushConfigsFull) {
		return c, invalidf("task %s already has %d push notification configs; delete one first", clip(taskID), maxPushConfigs)
	}
	if err != nil {
		return c, errUnavailable("The state store is unavailable; retry shortly")
	}
	s.push.forget(p.UserID, taskID)
	return stored, nil
}

// getPush reads one config.
func (s *Server) getPush(ctx context.Context, p runtime.Principal, taskID, id string) (store.PushConfig, error) {
	if err := s.pushEnabled(); err != nil {
		return store.PushConfig{}, err
	}
	if err := s.taskExists(ctx, p, taskID); err != nil {
		return store.PushConfig{}, err
	}
	if id == "" {
		cs, _, err := s.push.st.ListPushConfigs(ctx, p.UserID, taskID, "", 1)
		if err != nil {
			return store.PushConfig{}, errUnavailable("The state store is unavailable; retry shortly")
		}
		if len(cs) == 0 {
			return store.PushConfig{}, errPushConfigNotFound(taskID, "")
		}
		return cs[0], nil
	}
	c, found, err := s.push.st.GetPushConfig(ctx, p.UserID, taskID, id)
	if err != nil {
		return c, errUnavailable("The state store is unavailable; retry shortly")
	}
	if !found {
		return c, errPushConfigNotFound(taskID, id)
	}
	return c, nil
}

// errPushConfigNotFound is the answer for a config a task does not have.
func errPushConfigNotFound(taskID, id string) *Error {
	e := errTaskNotFound(taskID)
	e.Message = fmt.Sprintf("Task %s has no push notification config %q", clip(taskID), clip(id))
	if id == "" {
		e.Message = fmt.Sprintf("Task %s has no push notification config", clip(taskID))
	}
	return e
}

// listPush returns a page of a task's configs: after the config ID the
// page token names.
func (s *Server) listPush(ctx context.Context, p runtime.Principal, taskID string, pageSize int, pageToken string) ([]store.PushConfig, string, error) {
	if err := s.pushEnabled(); err != nil {
		return nil, "", err
	}
	if err := s.taskExists(ctx, p, taskID); err != nil {
		return nil, "", err
	}
	if pageSize < 0 || pageSize > 100 {
		return nil, "", invalidf("pageSize must be between 1 and 100")
	}
	cs, more, err := s.push.st.ListPushConfigs(ctx, p.UserID, taskID, pageToken, pageSize)
	if err != nil {
		return nil, "", errUnavailable("The state store is unavailable; retry shortly")
	}
	next := ""
	if more && len(cs) > 0 {
		next = cs[len(cs)-1].ID
	}
	return cs, next, nil
}

// deletePush removes a config; deleting one that is gone is not an error.
func (s *Server) deletePush(ctx context.Context, p runtime.Principal, taskID, id string) error {
	if err := s.pushEnabled(); err != nil {
		return err
	}
	if err := s.taskExists(ctx, p, taskID); err != nil {
		return err
	}
	if id == "" {
		return invalidf("the push notification config ID is required")
	}
	if _, err := s.push.st.DeletePushConfig(ctx, p.UserID, taskID, id); err != nil {
		return errUnavailable("The state store is unavailable; retry shortly")
	}
	s.push.forget(p.UserID, taskID)
	return nil
}
