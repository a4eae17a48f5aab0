package redisstore

import (
	"strconv"
	"strings"
)

// escapeID makes an ID safe inside a key: the characters that separate key
// parts or delimit a hash tag are percent-escaped, so no ID can name
// another user's or session's keys.
var idEscaper = strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D")

func escapeID(id string) string {
	if !strings.ContainsAny(id, "%:{}") {
		return id
	}
	return idEscaper.Replace(id)
}

// sessionKeys are the keys of one session; they share one hash tag so that a
// script may touch them together (also on Redis Cluster).
type sessionKeys struct {
	tag       string // prefix + "{s:user:session}"
	meta      string // HASH createdAt, updatedAt, msgs (transcript length), r:<escaped response ID> "" for each response, m:<offset> for each message (transcript.go)
	state     string // HASH top-level state key -> JSON value
	msgs      string // ZSET the transcript of a session made before it was in meta: score = offset, member = message JSON
	lease     string // STRING id of the response that holds the session
	responses string // SET escaped IDs of the responses of a session made before they were meta fields, to delete them with it
}

// sessionKeySuffixes follow the tag in sessionKeys' fields, in order.
var sessionKeySuffixes = [...]string{"", ":meta", ":state", ":msgs", ":lease", ":responses"}

// sessionKeys are made on every call of a turn, so they are built in one
// allocation: one string holds each key after the other, and every field
// is a slice of it.
func (s *Store) sessionKeys(user, session string) sessionKeys {
	u, id := escapeID(user), escapeID(session)
	var b strings.Builder
	b.Grow(len(sessionKeySuffixes)*(len(s.prefix)+len("{s::}")+len(u)+len(id)) + len(":meta:state:msgs:lease:responses"))
	var ends [len(sessionKeySuffixes)]int
	for i, suffix := range sessionKeySuffixes {
		b.WriteString(s.prefix)
		b.WriteString("{s:")
		b.WriteString(u)
		b.WriteByte(':')
		b.WriteString(id)
		b.WriteByte('}')
		b.WriteString(suffix)
		ends[i] = b.Len()
	}
	all := b.String()
	key := func(i int) string {
		if i == 0 {
			return all[:ends[0]]
		}
		return all[ends[i-1]:ends[i]]
	}
	return sessionKeys{tag: key(0), meta: key(1), state: key(2), msgs: key(3), lease: key(4), responses: key(5)}
}

// messageField is transcript message i's field in its session's meta.
func messageField(i int) string { return "m:" + strconv.Itoa(i) }

// responseField is a response's field in its session's meta: the
// session's responses are deleted with it.
func responseField(responseID string) string { return "r:" + escapeID(responseID) }

// receipt and events are a response's keys, under its session's tag.
func (k sessionKeys) receipt(responseID string) string { return k.tag + ":r:" + escapeID(responseID) }
func (k sessionKeys) events(responseID string) string  { return k.tag + ":l:" + escapeID(responseID) }

// webhook is the key of a response's webhook (store.Begin.Webhook), kept
// as long as its receipt, under its session's tag.
func (k sessionKeys) webhook(responseID string) string { return k.tag + ":h:" + escapeID(responseID) }

// epoch is the key of a run's epoch (its attempt, store.Claim): missing
// for the first attempt (1), written by ClaimRun, kept as long as the
// receipt; every write of a turn compares it with the writer's. request is
// a run's Begin.Request. Both are under the session's tag.
func (k sessionKeys) epoch(responseID string) string   { return k.tag + ":x:" + escapeID(responseID) }
func (k sessionKeys) request(responseID string) string { return k.tag + ":q:" + escapeID(responseID) }

// attempts is the key of a run's attempts (store.Attempts): missing for
// the first (1), written by SpendAttempt, kept as long as the receipt,
// under the session's tag.
func (k sessionKeys) attempts(responseID string) string { return k.tag + ":y:" + escapeID(responseID) }

// handedOff is the key of a run's hand-off mark (store.Attempts.MarkHandOff),
// written by its holder as it hands the run off, deleted by the next
// ClaimRun, under the session's tag.
func (k sessionKeys) handedOff(responseID string) string { return k.tag + ":z:" + escapeID(responseID) }

// journal is the key of a run's resume points (store.Journals): a hash of
// "p:"+key → data and "seq" → the last point's sequence, under the
// session's tag, kept for the receipt TTL from the last point.
func (k sessionKeys) journal(responseID string) string { return k.tag + ":j:" + escapeID(responseID) }

// channel is where a response's new events are announced (a pub/sub
// channel, not a key).
func (k sessionKeys) channel(responseID string) string { return k.tag + ":n:" + escapeID(responseID) }

// indexKey is the sorted set of a user's session IDs (all scores 0, ordered
// by ID), which makes listing a keyset scan of O(log N + page).
func (s *Store) indexKey(user string) string {
	return s.prefix + "{u:" + escapeID(user) + "}:sessions"
}
