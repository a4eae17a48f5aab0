package redisstore

import "strings"

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
	meta      string // HASH createdAt, updatedAt, msgs (transcript length)
	state     string // HASH top-level state key -> JSON value
	msgs      string // ZSET transcript: score = offset, member = message JSON
	lease     string // STRING id of the response that holds the session
	responses string // SET ids of the session's responses, to delete them with it
}

func (s *Store) sessionKeys(user, session string) sessionKeys {
	tag := s.prefix + "{s:" + escapeID(user) + ":" + escapeID(session) + "}"
	return sessionKeys{
		tag:       tag,
		meta:      tag + ":meta",
		state:     tag + ":state",
		msgs:      tag + ":msgs",
		lease:     tag + ":lease",
		responses: tag + ":responses",
	}
}

// receipt and events are a response's keys, under its session's tag.
func (k sessionKeys) receipt(responseID string) string { return k.tag + ":r:" + escapeID(responseID) }
func (k sessionKeys) events(responseID string) string  { return k.tag + ":e:" + escapeID(responseID) }

// indexKey is the sorted set of a user's session IDs (all scores 0, ordered
// by ID), which makes listing a keyset scan of O(log N + page).
func (s *Store) indexKey(user string) string {
	return s.prefix + "{u:" + escapeID(user) + "}:sessions"
}
