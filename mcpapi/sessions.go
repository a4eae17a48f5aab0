package mcpapi

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/internal/httpapi"
)

// The MCP sessions of this replica are bounded: each holds the SDK's
// connection state (about 16 KiB) until its client deletes it or it is
// idle for SessionIdleTimeout. A request that would open a session past
// MaxSessionsPerUser for its user, or past MaxSessions for the replica, is
// refused before the SDK opens one. The book also knows whose each session
// is, so that another user's session ID gets the same 404 as an unknown
// one.

// sessionHeader is the header that names an MCP session.
const sessionHeader = "Mcp-Session-Id"

// sessionBook counts the sessions of each user: those the SDK holds and
// those being opened. A closed session stays in the book until the book
// is full, when it looks at which sessions the SDK still holds (prune).
type sessionBook struct {
	maxTotal, maxPerUser int
	live                 func() []string // the IDs of the sessions the SDK holds

	mu      sync.Mutex
	owner   map[string]string // session ID → user
	held    map[string]int    // user → sessions booked or being opened
	opening int               // sessions being opened (in held, not in owner)
}

func newSessionBook(maxTotal, maxPerUser int, server *mcp.Server) *sessionBook {
	return &sessionBook{maxTotal: maxTotal, maxPerUser: maxPerUser, owner: map[string]string{}, held: map[string]int{},
		live: func() []string {
			var ids []string
			for s := range server.Sessions() {
				ids = append(ids, s.ID())
			}
			return ids
		}}
}

// refusal is why a session cannot be opened: the HTTP status, the code
// and the sentence.
type refusal struct {
	status       int
	code, detail string
}

// reserve books a session being opened for user, or says why not.
func (b *sessionBook) reserve(user string, idle time.Duration) *refusal {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.full(user) {
		b.prune()
	}
	switch {
	case b.held[user] >= b.maxPerUser:
		return &refusal{http.StatusTooManyRequests, "too_many_mcp_sessions", fmt.Sprintf(
			"You hold %d MCP session(s), the most one user may hold here; close one you no longer use (DELETE /mcp with its Mcp-Session-Id) or reuse it; an idle session ends after %s",
			b.held[user], idle)}
	case len(b.owner)+b.opening >= b.maxTotal:
		return &refusal{http.StatusServiceUnavailable, "mcp_sessions_full", fmt.Sprintf(
			"This server holds %d MCP sessions, the most it keeps; retry later (an idle session ends after %s) or on another replica",
			len(b.owner)+b.opening, idle)}
	}
	b.held[user]++
	b.opening++
	return nil
}

// full reports whether a new session of user would pass a bound.
func (b *sessionBook) full(user string) bool {
	return b.held[user] >= b.maxPerUser || len(b.owner)+b.opening >= b.maxTotal
}

// settle ends a reservation: the SDK opened the session id (it answered
// with its Mcp-Session-Id), or none ("").
func (b *sessionBook) settle(user, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opening--
	if _, known := b.owner[id]; id == "" || known {
		b.release(user)
		return
	}
	b.owner[id] = user
}

// release gives back one of user's sessions.
func (b *sessionBook) release(user string) {
	if b.held[user]--; b.held[user] <= 0 {
		delete(b.held, user)
	}
}

// prune drops the sessions the SDK no longer holds (closed by their
// client, idle, or never initialised).
func (b *sessionBook) prune() {
	alive := map[string]bool{}
	for _, id := range b.live() {
		alive[id] = true
	}
	for id, user := range b.owner {
		if !alive[id] {
			delete(b.owner, id)
			b.release(user)
		}
	}
}

// write answers a request whose session cannot be opened.
func (r *refusal) write(w http.ResponseWriter, idle time.Duration) {
	w.Header().Set("Retry-After", fmt.Sprint(int64((idle+time.Second-1)/time.Second)))
	httpapi.Fail(w, r.status, r.code, r.detail)
}

// sessionNotFound is the SDK's answer to an unknown session ID, also
// given for another user's: the two cannot be told apart.
func sessionNotFound(w http.ResponseWriter) {
	http.Error(w, "session not found", http.StatusNotFound)
}
