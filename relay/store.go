package relay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Participant states.
const (
	StateActive = "active"
	StatePaused = "paused"
)

// Item states.
const (
	itemPending   = "pending"
	itemAnswered  = "answered"
	itemCancelled = "cancelled"
)

// Errors of the relay store, mapped once to HTTP statuses by the handlers
// and to turn failures by the backend.
var (
	errInvalidCode = errors.New("relay: pairing code is unknown, used or expired")
	errMismatch    = errors.New("relay: card does not match the pairing")
	errGone        = errors.New("relay: participant is gone")
	errPaused      = errors.New("relay: participant is paused")
	errFull        = errors.New("relay: participant has too many pending items")
	errUnknownItem = errors.New("relay: unknown relay item")
	errExpiredItem = errors.New("relay: relay item expired")
	errAnswered    = errors.New("relay: relay item already answered")
)

// Participant is one paired outside agent. It belongs to the owner who
// created its pairing code: only that owner manages it, sees its notices
// and stage items, and sends it turns.
type Participant struct {
	ID          string
	Owner       string // the user ID of the owner who created the pairing code
	Name        string
	Kind        string
	Description string
	State       string
	PairedAt    time.Time
	ExpiresAt   time.Time
	tokenHash   string
}

// Item is one question waiting in a participant's inbox.
type Item struct {
	RelayID     string
	Participant string
	Text        string
	AskedAt     time.Time
	DeadlineAt  time.Time
	State       string
	Reply       string
}

// db keeps the relay's state in Redis. Every key shares the hash tag
// {relay}, so scripts may touch several keys (also on Redis Cluster).
//
// The state is scoped per owner: everything a pairing code leads to lives
// under o:<owner>: (the owner's user ID, escaped). Only the two entry
// points a secret opens are outside it, and each names its owner:
//
//	code:<sha256 of code>       hash    owner, name, kind, expires
//	session:<sha256 of token>   hash    owner, pid
//	o:<owner>:p:<pid>           hash    the participant (and its token's hash)
//	o:<owner>:parts             zset    participant IDs by expiry
//	o:<owner>:inbox:<pid>       zset    pending relay IDs by deadline
//	o:<owner>:item:<rid>        hash    one question and its reply
//	o:<owner>:feed              stream  notices and stage items
//	o:<owner>:say:<pid>         string  the time of the last say
//	o:<owner>:rl:<name>:<subject>:<window>  the owner's rate buckets
//	rl:exchange:<ip>:<window>   the one bucket before any owner is known
type db struct {
	rdb    redis.UniversalClient
	prefix string // configured prefix + "{relay}:"
	wakeCh string // pub/sub channel that wakes waiters on every replica
}

func newDB(rdb redis.UniversalClient, prefix string) *db {
	if prefix == "" {
		prefix = "harnest:"
	}
	return &db{rdb: rdb, prefix: prefix + "{relay}:", wakeCh: prefix + "relay:wake"}
}

// ownerPrefix is where one owner's relay state lives.
func (s *db) ownerPrefix(owner string) string { return s.prefix + "o:" + escape(owner) + ":" }

func (s *db) codeKey(hash string) string          { return s.prefix + "code:" + hash }
func (s *db) sessionKey(hash string) string       { return s.prefix + "session:" + hash }
func (s *db) partKey(owner, pid string) string    { return s.ownerPrefix(owner) + "p:" + pid }
func (s *db) partsKey(owner string) string        { return s.ownerPrefix(owner) + "parts" }
func (s *db) inboxKey(owner, pid string) string   { return s.ownerPrefix(owner) + "inbox:" + pid }
func (s *db) itemKey(owner, rid string) string    { return s.ownerPrefix(owner) + "item:" + rid }
func (s *db) feedKey(owner string) string         { return s.ownerPrefix(owner) + "feed" }
func (s *db) lastSayKey(owner, pid string) string { return s.ownerPrefix(owner) + "say:" + pid }
func (s *db) bucketKey(owner, name, subject string, window int64) string {
	scope := s.prefix
	if owner != "" {
		scope = s.ownerPrefix(owner)
	}
	return scope + "rl:" + name + ":" + escape(subject) + ":" + strconv.FormatInt(window, 10)
}

// feedWake is the wake-up key of one owner's feed.
func feedWake(owner string) string { return "feed:" + owner }

// hashSecret is how codes and tokens are stored: never in the clear.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.UnixMilli(n).UTC()
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newToken returns a session token: 32 random bytes, URL-safe.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "hrn_" + hex.EncodeToString(b[:])
}

// codeAlphabet has no look-alike characters (no 0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// newCode returns a pairing code such as "K7QM-X2PA-9RTW".
func newCode() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[int(c)%len(codeAlphabet)])
	}
	return sb.String()
}

// normalizeCode makes a typed code comparable: upper case, no spaces.
func normalizeCode(code string) string {
	return strings.ToUpper(strings.Join(strings.Fields(code), ""))
}

// createCode stores a single-use pairing code for name and kind; the
// participant it pairs will belong to owner.
func (s *db) createCode(ctx context.Context, owner, name, kind string, expires time.Time, ttl time.Duration) (string, error) {
	code := newCode()
	key := s.codeKey(hashSecret(normalizeCode(code)))
	p := s.rdb.TxPipeline()
	p.HSet(ctx, key, "owner", owner, "name", name, "kind", kind, "expires", ms(expires))
	p.PExpire(ctx, key, ttl)
	if _, err := p.Exec(ctx); err != nil {
		return "", err
	}
	return code, nil
}

var exchangeScript = redis.NewScript(`
local c = redis.call('HMGET', KEYS[1], 'name', 'kind', 'expires', 'owner')
if not c[1] or c[4] ~= ARGV[9] then return 'invalid' end
if tonumber(c[3]) <= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
  return 'invalid'
end
if c[1] ~= ARGV[1] or c[2] ~= ARGV[2] then return 'mismatch' end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'owner', ARGV[9], 'pid', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[8])
redis.call('HSET', KEYS[3], 'id', ARGV[4], 'owner', ARGV[9], 'name', ARGV[1], 'kind', ARGV[2], 'description', ARGV[7],
  'state', 'active', 'paired', ARGV[3], 'expires', ARGV[6], 'token', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[8])
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[4])
return 'ok'
`)

// exchange consumes a pairing code whose name and kind match and creates a
// participant of the code's owner with a new session token.
func (s *db) exchange(ctx context.Context, code, name, kind, description string, now time.Time, ttl time.Duration) (Participant, string, error) {
	codeKey := s.codeKey(hashSecret(normalizeCode(code)))
	// The owner decides where the participant's keys go, so it is read
	// first; the script checks it again while it consumes the code.
	owner, err := s.rdb.HGet(ctx, codeKey, "owner").Result()
	if errors.Is(err, redis.Nil) || err == nil && owner == "" {
		return Participant{}, "", errInvalidCode
	}
	if err != nil {
		return Participant{}, "", err
	}
	pid, token := newUUID(), newToken()
	th := hashSecret(token)
	expires := now.Add(ttl)
	res, err := exchangeScript.Run(ctx, s.rdb,
		[]string{codeKey, s.sessionKey(th), s.partKey(owner, pid), s.partsKey(owner)},
		name, kind, ms(now), pid, th, ms(expires), description, ttl.Milliseconds(), owner).Text()
	if err != nil {
		return Participant{}, "", err
	}
	switch res {
	case "invalid":
		return Participant{}, "", errInvalidCode
	case "mismatch":
		return Participant{}, "", errMismatch
	}
	return Participant{ID: pid, Owner: owner, Name: name, Kind: kind, Description: description, State: StateActive,
		PairedAt: time.UnixMilli(ms(now)).UTC(), ExpiresAt: time.UnixMilli(ms(expires)).UTC(), tokenHash: th}, token, nil
}

func participantFrom(m map[string]string) (Participant, bool) {
	if m["id"] == "" || m["owner"] == "" {
		return Participant{}, false
	}
	return Participant{ID: m["id"], Owner: m["owner"], Name: m["name"], Kind: m["kind"], Description: m["description"],
		State: m["state"], PairedAt: fromMS(m["paired"]), ExpiresAt: fromMS(m["expires"]), tokenHash: m["token"]}, true
}

// byToken returns the live participant a session token belongs to.
func (s *db) byToken(ctx context.Context, token string, now time.Time) (Participant, bool, error) {
	th := hashSecret(token)
	sess, err := s.rdb.HMGet(ctx, s.sessionKey(th), "owner", "pid").Result()
	if err != nil {
		return Participant{}, false, err
	}
	owner, _ := sess[0].(string)
	pid, _ := sess[1].(string)
	if owner == "" || pid == "" {
		return Participant{}, false, nil
	}
	p, ok, err := s.participant(ctx, owner, pid, now)
	if err != nil || !ok || p.tokenHash != th {
		return Participant{}, false, err
	}
	return p, true, nil
}

// participant returns one of owner's participants unless it is unknown,
// another owner's or expired.
func (s *db) participant(ctx context.Context, owner, pid string, now time.Time) (Participant, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.partKey(owner, pid)).Result()
	if err != nil {
		return Participant{}, false, err
	}
	p, ok := participantFrom(m)
	if !ok || p.Owner != owner || !p.ExpiresAt.After(now) {
		return Participant{}, false, nil
	}
	return p, true, nil
}

// participants lists owner's live participants, oldest pairing first.
func (s *db) participants(ctx context.Context, owner string, now time.Time) ([]Participant, error) {
	s.rdb.ZRemRangeByScore(ctx, s.partsKey(owner), "-inf", strconv.FormatInt(ms(now), 10))
	ids, err := s.rdb.ZRangeByScore(ctx, s.partsKey(owner), &redis.ZRangeBy{Min: "(" + strconv.FormatInt(ms(now), 10), Max: "+inf"}).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	p := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = p.HGetAll(ctx, s.partKey(owner, id))
	}
	if _, err := p.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var out []Participant
	for _, c := range cmds {
		if part, ok := participantFrom(c.Val()); ok && part.Owner == owner && part.ExpiresAt.After(now) {
			out = append(out, part)
		}
	}
	sortParticipants(out)
	return out, nil
}

func sortParticipants(ps []Participant) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && (ps[j].PairedAt.Before(ps[j-1].PairedAt) ||
			ps[j].PairedAt.Equal(ps[j-1].PairedAt) && ps[j].ID < ps[j-1].ID); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

var setStateScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
return 1
`)

// setState pauses or resumes one of owner's participants; false when it
// is gone (or another owner's).
func (s *db) setState(ctx context.Context, owner, pid, state string, now time.Time) (bool, error) {
	if _, ok, err := s.participant(ctx, owner, pid, now); err != nil || !ok {
		return false, err
	}
	n, err := setStateScript.Run(ctx, s.rdb, []string{s.partKey(owner, pid)}, state).Int()
	if err != nil {
		return false, err
	}
	return n == 1, s.wake(ctx, "p:"+pid)
}

// disconnect removes one of owner's participants and ends its session
// token; false when it is gone (or another owner's).
func (s *db) disconnect(ctx context.Context, owner, pid string, now time.Time) (bool, error) {
	p, ok, err := s.participant(ctx, owner, pid, now)
	if err != nil || !ok {
		return false, err
	}
	pipe := s.rdb.TxPipeline()
	pipe.Del(ctx, s.partKey(owner, pid), s.sessionKey(p.tokenHash), s.inboxKey(owner, pid), s.lastSayKey(owner, pid))
	pipe.ZRem(ctx, s.partsKey(owner), pid)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, err
	}
	return true, s.wake(ctx, "p:"+pid)
}

var enqueueScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'state', 'expires')
if not st[1] or tonumber(st[2]) <= tonumber(ARGV[1]) then return 'gone' end
if st[1] == 'paused' then return 'paused' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'full' end
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'pid', ARGV[3], 'text', ARGV[4], 'asked', ARGV[1],
  'deadline', ARGV[5], 'state', 'pending')
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 'ok'
`)

// enqueue puts a question into the inbox of one of owner's participants.
func (s *db) enqueue(ctx context.Context, owner, pid, text string, now, deadline time.Time, maxPending int) (Item, error) {
	rid := newUUID()
	keep := deadline.Sub(now) + time.Hour
	res, err := enqueueScript.Run(ctx, s.rdb, []string{s.partKey(owner, pid), s.inboxKey(owner, pid), s.itemKey(owner, rid)},
		ms(now), rid, pid, text, ms(deadline), maxPending, keep.Milliseconds()).Text()
	if err != nil {
		return Item{}, err
	}
	switch res {
	case "gone":
		return Item{}, errGone
	case "paused":
		return Item{}, errPaused
	case "full":
		return Item{}, errFull
	}
	if err := s.wake(ctx, "p:"+pid); err != nil {
		return Item{}, err
	}
	return Item{RelayID: rid, Participant: pid, Text: text, AskedAt: time.UnixMilli(ms(now)).UTC(),
		DeadlineAt: time.UnixMilli(ms(deadline)).UTC(), State: itemPending}, nil
}

func itemFrom(m map[string]string) (Item, bool) {
	if m["id"] == "" {
		return Item{}, false
	}
	return Item{RelayID: m["id"], Participant: m["pid"], Text: m["text"], AskedAt: fromMS(m["asked"]),
		DeadlineAt: fromMS(m["deadline"]), State: m["state"], Reply: m["reply"]}, true
}

// item reads one of owner's items.
func (s *db) item(ctx context.Context, owner, rid string) (Item, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.itemKey(owner, rid)).Result()
	if err != nil {
		return Item{}, false, err
	}
	it, ok := itemFrom(m)
	return it, ok, nil
}

// pending lists the unanswered, unexpired items of one of owner's
// participants, oldest first.
func (s *db) pending(ctx context.Context, owner, pid string, now time.Time) ([]Item, error) {
	ids, err := s.rdb.ZRangeByScore(ctx, s.inboxKey(owner, pid), &redis.ZRangeBy{Min: "(" + strconv.FormatInt(ms(now), 10), Max: "+inf"}).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	p := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = p.HGetAll(ctx, s.itemKey(owner, id))
	}
	if _, err := p.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var out []Item
	for _, c := range cmds {
		if it, ok := itemFrom(c.Val()); ok && it.State == itemPending && it.Participant == pid && it.DeadlineAt.After(now) {
			out = append(out, it)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].AskedAt.Before(out[j-1].AskedAt); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

var replyScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'state', 'expires')
if not st[1] or tonumber(st[2]) <= tonumber(ARGV[1]) then return 'gone' end
if st[1] == 'paused' then return 'paused' end
local it = redis.call('HMGET', KEYS[3], 'pid', 'state', 'deadline')
if not it[1] or it[1] ~= ARGV[2] then return 'unknown' end
if it[2] == 'answered' then return 'answered' end
if it[2] ~= 'pending' or tonumber(it[3]) <= tonumber(ARGV[1]) then return 'expired' end
redis.call('HSET', KEYS[3], 'state', 'answered', 'reply', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[4])
return 'ok'
`)

// reply records the answer of one of owner's participants to one of its
// items.
func (s *db) reply(ctx context.Context, owner, pid, rid, text string, now time.Time) error {
	res, err := replyScript.Run(ctx, s.rdb, []string{s.partKey(owner, pid), s.inboxKey(owner, pid), s.itemKey(owner, rid)},
		ms(now), pid, text, rid).Text()
	if err != nil {
		return err
	}
	switch res {
	case "gone":
		return errGone
	case "paused":
		return errPaused
	case "unknown":
		return errUnknownItem
	case "answered":
		return errAnswered
	case "expired":
		return errExpiredItem
	}
	return s.wake(ctx, "r:"+rid)
}

// cancel withdraws an unanswered item (its turn ended).
func (s *db) cancel(ctx context.Context, owner, pid, rid string) error {
	p := s.rdb.TxPipeline()
	p.HSet(ctx, s.itemKey(owner, rid), "state", itemCancelled)
	p.ZRem(ctx, s.inboxKey(owner, pid), rid)
	_, err := p.Exec(ctx)
	return err
}

var bucketScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then return 0 end
return 1
`)

// take counts one request in a fixed-window bucket of owner's (or, with
// owner "", the server's) shared by all replicas. Windows start at whole
// multiples of window since the Unix epoch, so a 24-hour window is a UTC
// day. When the bucket is exhausted it returns how long until it refills.
func (s *db) take(ctx context.Context, owner, name, subject string, limit int, window time.Duration, now time.Time) (bool, time.Duration, error) {
	w := now.UnixMilli() / window.Milliseconds()
	ok, err := bucketScript.Run(ctx, s.rdb, []string{s.bucketKey(owner, name, subject, w)}, limit, (2 * window).Milliseconds()).Int()
	if err != nil {
		return false, 0, err
	}
	if ok == 1 {
		return true, 0, nil
	}
	end := time.UnixMilli((w + 1) * window.Milliseconds())
	return false, end.Sub(now), nil
}

var spacingScript = redis.NewScript(`
local last = redis.call('GET', KEYS[1])
if last and tonumber(ARGV[1]) - tonumber(last) < tonumber(ARGV[2]) then
  return tonumber(last) + tonumber(ARGV[2]) - tonumber(ARGV[1])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0
`)

// spaced allows one event per gap for a key; otherwise it returns the wait.
func (s *db) spaced(ctx context.Context, key string, gap time.Duration, now time.Time) (bool, time.Duration, error) {
	wait, err := spacingScript.Run(ctx, s.rdb, []string{key}, ms(now), gap.Milliseconds()).Int64()
	if err != nil {
		return false, 0, err
	}
	return wait == 0, time.Duration(wait) * time.Millisecond, nil
}

// FeedEntry is one notice or stage item the owner sees.
type FeedEntry struct {
	ID            string          `json:"id"`
	ParticipantID string          `json:"participant_id"`
	Name          string          `json:"name"`
	Kind          string          `json:"kind"`
	Type          string          `json:"type"` // "notice" or "stage"
	Text          string          `json:"text,omitempty"`
	Item          json.RawMessage `json:"item,omitempty"`
	At            string          `json:"at"`
}

const feedMax = 500

// addFeed appends a notice or stage item to owner's feed.
func (s *db) addFeed(ctx context.Context, owner string, e FeedEntry) error {
	e.ID = ""
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := s.rdb.XAdd(ctx, &redis.XAddArgs{Stream: s.feedKey(owner), MaxLen: feedMax, Approx: true,
		Values: []any{"e", string(b)}}).Err(); err != nil {
		return err
	}
	return s.wake(ctx, feedWake(owner))
}

func feedFrom(msgs []redis.XMessage) []FeedEntry {
	out := make([]FeedEntry, 0, len(msgs))
	for _, m := range msgs {
		raw, _ := m.Values["e"].(string)
		var e FeedEntry
		if json.Unmarshal([]byte(raw), &e) != nil {
			continue
		}
		e.ID = m.ID
		out = append(out, e)
	}
	return out
}

// newestFeed returns the newest n entries of owner's feed, newest first.
func (s *db) newestFeed(ctx context.Context, owner string, n int) ([]FeedEntry, error) {
	msgs, err := s.rdb.XRevRangeN(ctx, s.feedKey(owner), "+", "-", int64(n)).Result()
	if err != nil {
		return nil, err
	}
	return feedFrom(msgs), nil
}

// feedAfter returns up to n entries of owner's feed after id, oldest
// first.
func (s *db) feedAfter(ctx context.Context, owner, id string, n int) ([]FeedEntry, error) {
	res, err := s.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{s.feedKey(owner), id}, Count: int64(n), Block: -1}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, nil
	}
	return feedFrom(res[0].Messages), nil
}

// lastFeedID is the ID of the newest entry of owner's feed, or "0-0".
func (s *db) lastFeedID(ctx context.Context, owner string) (string, error) {
	msgs, err := s.rdb.XRevRangeN(ctx, s.feedKey(owner), "+", "-", 1).Result()
	if err != nil || len(msgs) == 0 {
		return "0-0", err
	}
	return msgs[0].ID, nil
}

// wake tells every replica that something changed for key.
func (s *db) wake(ctx context.Context, key string) error {
	return s.rdb.Publish(ctx, s.wakeCh, key).Err()
}

func escape(id string) string {
	return strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D").Replace(id)
}

// waiters wakes local goroutines when a replica publishes a key on the
// relay's channel. One subscription per Relay serves every waiter.
type waiters struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

func (w *waiters) add(key string) (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs == nil {
		w.subs = map[string]map[chan struct{}]struct{}{}
	}
	if w.subs[key] == nil {
		w.subs[key] = map[chan struct{}]struct{}{}
	}
	w.subs[key][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.subs[key], ch)
		if len(w.subs[key]) == 0 {
			delete(w.subs, key)
		}
		w.mu.Unlock()
	}
}

func (w *waiters) notify(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs[key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// listen runs the subscription until ctx ends.
func (s *db) listen(ctx context.Context, w *waiters) error {
	ps := s.rdb.Subscribe(ctx, s.wakeCh)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return fmt.Errorf("relay: subscribe: %w", err)
	}
	go func() {
		defer ps.Close()
		ch := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				w.notify(m.Payload)
			}
		}
	}()
	return nil
}
