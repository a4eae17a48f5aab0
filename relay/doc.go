// Package relay lets agents that run on someone's own computer answer this
// agent's turns without opening a port (relay-poll-v1). The outside agent
// pairs once with a single-use code its owner created, long-polls an inbox
// under /api/outside-agents/v1/ with its session token and posts replies;
// it may also send its owner notices and stage items. The owner manages
// participants under /owner/outside-agents/ and follows notices live (SSE).
//
// Owners are the users of tokens with owner: true (without auth, the local
// anonymous user). Each owner has a relay of their own: a pairing code
// pairs a participant of the owner who created it, and that participant's
// session token, inbox, notices, stage items and rate buckets are that
// owner's. An owner's /owner/outside-agents/ routes list and manage only
// their own participants and feed; another owner's participant ID answers
// 404, as an unknown one does.
//
// As the backend (spec.backend.relay), an owner's turn goes to that owner's
// participants. Another user's turn is refused (ErrAgentRefused, HTTP 404,
// code relay_owner_only) unless allowVisitors is set; then it goes to the
// participants of the agent's first owner, the first auth.tokens entry with
// owner: true (Options.FirstOwner; without auth, the local anonymous user),
// within a daily cap per UTC day (ErrRateLimited, HTTP 429 with
// Retry-After, code relay_visitor_cap). No participant, a paused or busy
// one, or a passed deadline fail the turn as unavailable (HTTP 503), which
// may change by trying later. A question the outside agent cannot take (not
// text, or longer than MaxQuestionChars) is the caller's bad input (HTTP
// 400, code relay_invalid_question).
//
// A card sent to the exchange may carry the alive extension: checked as an
// A2A card's is (internal/alive), an invalid one ignored whole, a valid
// one kept as the participant's look (look.go) and shown in the owner's
// participant list and feed.
//
// Recipes (relay/recipes) are reviewed connection metadata for known
// harness kinds, schema recipes.Schema: the built-in ones embedded from
// relay/recipes/*.json, with the agent folder's recipes/*.json laid over
// them (recipes.Load; recipes.Check for harnest check). The owner lists
// them (GET /owner/outside-agents/recipes) and creates pairing codes for
// one ({"name", "recipe"}): the code's kind is the recipe's id, which the
// exchanged card's kind must match.
//
// The relay's state lives in the store (store.Relay), which owns its
// schema: pairing codes and session tokens (kept only as hashes),
// participants, inboxes, items, replies, the owner's feed and the rate
// buckets, every part of it an owner's. A turn may start on one replica
// while the outside agent polls another: the store wakes waiters on every
// replica (Redis pub/sub, one subscription per store), so an idle long
// poll or feed stream makes no store reads while it waits.
//
// # Layout
//
// The relay is one feature in one folder; this package is its door, and
// each concept below it is a package that knows no HTTP:
//
//	relay/          the door: New, Register (the participants' and the
//	                owner's routes, bodies, sessions, rate buckets, feed),
//	                pairing, presence, hand-offs, and the routes of recipes
//	                and tools at home
//	relay/agent     the relay backend: a turn becomes an inbox item for an
//	                owner's participant and its reply the answer
//	relay/recipes   the recipes: parsing, the built-in files, an agent
//	                folder's own
//	relay/tools     tools at home: the tool set, run notes, a call's run,
//	                approval and feed note
//	relay/text      the text rules every part checks words with (plain
//	                text, markup, links, kinds) and the relay's time stamp
//
// Arrows go one way: the door imports the others; agent, recipes and
// tools import text and the core (runtime, store, config), never the door
// nor a backend (server's TestLayers). Each takes from the store only what
// it calls: the door store.Relay, RelayTools and Secrets (Store), the
// agent and tools at home their own agent.Store and tools.Store.
//
// The relay's client (harnest connect and pair) stays in cmd/harnest, a
// command like the others; its OpenAPI stays in neutral/apidoc, which
// builds the one document of every route.
//
// Use New, mount the endpoints with Register, let the auth middleware pass
// the relay endpoints with IsPublic (they check the session token
// themselves), give the relay the server's authenticator (Options.Auth:
// one for the replica), and build the backend with backend.ForFolder,
// which asks AgentWith for spec.backend.relay and for a router's relay
// harnesses.
package relay
