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
// Recipes (recipe.go, recipes.go) are reviewed connection metadata for
// known harness kinds, schema RecipeSchema: the built-in ones embedded from
// recipes/*.json, with the agent folder's recipes/*.json laid over them
// (LoadRecipes; CheckRecipes for harnest check). The owner lists them
// (GET /owner/outside-agents/recipes) and creates pairing codes for one
// ({"name", "recipe"}): the code's kind is the recipe's id, which the
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
// Use New, mount the endpoints with Register, let the auth middleware pass
// the relay endpoints with IsPublic (they check the session token
// themselves), and serve turns with Agent.
package relay
