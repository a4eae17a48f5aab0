package relay

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/alive"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/relay/agent"
	"github.com/harnest/harnest/relay/recipes"
	"github.com/harnest/harnest/relay/tools"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Limits of relay-poll-v1, as the outside agents' guide states them.
const (
	APIPrefix   = "/api/outside-agents/v1/"
	OwnerPrefix = "/owner/outside-agents/"

	CodeTTL          = 5 * time.Minute
	SessionTTL       = 8 * time.Hour
	MaxWait          = 20 * time.Second
	MaxPending       = agent.MaxPending
	MaxReplyChars    = 4000
	MaxQuestionChars = agent.MaxQuestionChars
	MaxNoticeChars   = 600
	DefaultDeadline  = agent.DefaultDeadline

	ExchangePerMinute = 20
	StatusPerMinute   = 30
	PollPerMinute     = 60 // inbox and replies together
	NoticesPerHour    = 3
	StagePerMinute    = 12
	SayEvery          = 5 * time.Second

	// DefaultVisitorDailyCap applies when allowVisitors is set without a
	// cap.
	DefaultVisitorDailyCap = agent.DefaultVisitorDailyCap

	maxBodyBytes = 64 << 10
)

// Options configure a Relay.
type Options struct {
	// Service is the runtime; optional (the relay only needs the store).
	Service *runtime.Service
	// Store holds the relay's state.
	Store Store
	// Auth is the server's authenticator: with no tokens configured, the
	// anonymous user is the owner.
	Auth *auth.Authenticator
	// Owners are the user IDs of tokens with owner: true. Each owner has
	// a relay of their own: their pairing codes, participants, feed and
	// rate buckets, which no other owner sees.
	Owners map[string]bool
	// FirstOwner is the user ID of the first auth.tokens entry with
	// owner: true: visitors' turns (allowVisitors) go to this owner's
	// participants. It must be one of Owners. When empty, it is the only
	// owner, the anonymous user when auth has no tokens, or (several
	// owners, none named) the smallest user ID, with a warning.
	FirstOwner string
	// Backend is spec.backend.relay; nil when the relay only serves
	// pairing (Agent then still works with the defaults).
	Backend *config.RelayBackend
	// Recipes are the recipes the relay lists and pairs codes for
	// (recipes.Load of the agent folder); nil: the built-in ones.
	Recipes *recipes.Set
	// Alive configures how an exchanged card's alive_json is fetched
	// (the zero value is production's: public https hosts only).
	Alive  alive.Options
	Logger *slog.Logger
	// Now replaces the clock (tests). A clock given here may jump, so a
	// turn waiting for its reply then also checks its deadline every
	// testClockTick; with the real clock it waits on timers and wake-ups
	// alone.
	Now func() time.Time
}

// Store is what the relay keeps in the store: its pairing codes,
// participants, inboxes and feeds (store.Relay), and for tools at home
// their callback tokens, grants and calls (store.RelayTools) and the run
// notes' shared key (store.Secrets).
type Store interface {
	store.Relay
	store.RelayTools
	store.Secrets
}

// testClockTick is how often a turn waiting for its reply re-reads the
// store when Options.Now replaced the clock.
const testClockTick = 2 * time.Second

// Relay serves the relay endpoints, the owner's endpoints and the relay
// backend of one replica.
type Relay struct {
	// st is the store's relay part: the relay reads and writes nothing
	// else, and wakes waiters through its Listen operations.
	st      store.Relay
	auth    *auth.Authenticator
	owners  map[string]bool
	first   string // whose participants answer visitors' turns; "" for nobody
	backend config.RelayBackend
	log     *slog.Logger
	now     func() time.Time
	// tick is how often a waiting turn re-reads the store: 0 (never, it
	// is woken), or testClockTick with a test clock.
	tick time.Duration
	// maxWait bounds an inbox poll's wait: MaxWait (tests lengthen it).
	maxWait time.Duration
	// home is tools at home (relay/tools); nil while they are off.
	home *tools.Home
	// homeSt is the store as tools at home (relay/tools) and their
	// routes use it: their own state, the notes' key, the participants and
	// the owner's feed; handed to them when they are turned on.
	homeSt Store
	// recipeSet is what the relay lists and pairs codes for.
	recipeSet *recipes.Set
	// alive fetches exchanged cards' alive_json.
	alive alive.Options
}

// New builds a Relay.
func New(o Options) (*Relay, error) {
	if o.Store == nil {
		return nil, errors.New("relay: a store is required")
	}
	r := &Relay{
		st:      o.Store,
		homeSt:  o.Store,
		auth:    o.Auth,
		owners:  o.Owners,
		log:     o.Logger,
		now:     o.Now,
		maxWait: MaxWait,
		alive:   o.Alive,
	}
	if r.recipeSet = o.Recipes; r.recipeSet == nil {
		r.recipeSet = recipes.BuiltinOnly()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	} else {
		r.tick = testClockTick
	}
	if o.Backend != nil {
		r.backend = *o.Backend
	}
	first, err := firstOwner(o)
	if err != nil {
		return nil, err
	}
	if o.FirstOwner == "" && len(o.Owners) > 1 {
		r.log.Warn("relay: several owners and no first owner named; visitors' turns go to the participants of the smallest user ID",
			"owner", first)
	}
	r.first = first
	return r, nil
}

// firstOwner is the owner whose participants answer visitors' turns.
func firstOwner(o Options) (string, error) {
	if o.FirstOwner != "" {
		if !o.Owners[o.FirstOwner] {
			return "", fmt.Errorf("relay: the first owner %q is not one of the owners; name a user of a token with owner: true", o.FirstOwner)
		}
		return o.FirstOwner, nil
	}
	if len(o.Owners) == 0 {
		if o.Auth == nil || !o.Auth.Enabled() {
			return runtime.AnonymousUser, nil
		}
		return "", nil // auth without owner tokens: nobody can pair
	}
	ids := make([]string, 0, len(o.Owners))
	for id, ok := range o.Owners {
		if ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	slices.Sort(ids)
	return ids[0], nil
}

// visitorOwner is the owner whose participants answer a visitor's turn, or
// "" when there is none.
func (r *Relay) visitorOwner() string { return r.first }

// Close stops the tools at home's MCP servers; the store holds the
// relay's one subscription and ends it when the store is closed.
func (r *Relay) Close() error {
	r.closeToolsAtHome()
	return nil
}

// Register mounts the relay and owner endpoints.
func (r *Relay) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST "+APIPrefix+"pairings/exchange", r.handleExchange)
	mux.HandleFunc("GET "+APIPrefix+"inbox", r.handleInbox)
	mux.HandleFunc("POST "+APIPrefix+"replies", r.handleReplies)
	mux.HandleFunc("GET "+APIPrefix+"session/status", r.handleStatus)
	mux.HandleFunc("POST "+APIPrefix+"notices", r.handleNotices)

	mux.HandleFunc("POST "+OwnerPrefix+"pairings", r.owner(r.handleCreatePairing))
	mux.HandleFunc("GET "+OwnerPrefix+"participants", r.owner(r.handleParticipants))
	mux.HandleFunc("POST "+OwnerPrefix+"participants/{id}/pause", r.owner(r.handleSetState(store.RelayPaused)))
	mux.HandleFunc("POST "+OwnerPrefix+"participants/{id}/resume", r.owner(r.handleSetState(store.RelayActive)))
	mux.HandleFunc("POST "+OwnerPrefix+"participants/{id}/disconnect", r.owner(r.handleDisconnect))
	mux.HandleFunc("DELETE "+OwnerPrefix+"participants/{id}", r.owner(r.handleDisconnect))
	mux.HandleFunc("GET "+OwnerPrefix+"feed", r.owner(r.handleFeed))
	mux.HandleFunc("GET "+OwnerPrefix+"feed/stream", r.owner(r.handleFeedStream))
	r.registerTools(mux)
	r.registerRecipes(mux)
}

// IsPublic reports the relay endpoints, which authenticate with the
// participant's session token (or, for the exchange, a pairing code)
// instead of the server's bearer tokens.
func IsPublic(req *http.Request) bool {
	return strings.HasPrefix(req.URL.Path, APIPrefix)
}

// IsOwner reports whether a user is the agent's owner: a user of a token
// with owner: true, a user whose JWT carried the owner claim, or the
// anonymous user when auth has no tokens. Each source makes owners of its
// own users only: a JWT user (auth.IsJWTUser) is never an owner by a
// static token's owner: true, and a static token's user never by a JWT.
func (r *Relay) IsOwner(userID string) bool {
	if userID == "" {
		return false
	}
	if auth.IsJWTUser(userID) {
		return r.auth != nil && r.auth.IsOwner(userID) // a JWT's owner claim
	}
	if r.owners[userID] {
		return true
	}
	return userID == runtime.AnonymousUser && len(r.owners) == 0 && (r.auth == nil || !r.auth.Enabled())
}

// Agent is the relay backend of Options.Backend (AgentWith that section).
func (r *Relay) Agent() runtime.Agent { return r.AgentWith(r.backend) }
