// Package usageapi serves GET /usage: a user's usage of the agent per UTC
// day, and per backend and model within each day (turns, input and output
// tokens, cost in micro-dollars where the backend reports it), read from
// the usage counters the runtime keeps when turns end
// (store.UsageCounters). A caller reads their own; an owner may name any
// user (?user=) or read everyone's together (?all=true). Someone else's
// usage is 404 to a caller who is not an owner, as anything a user does
// not own.
//
// Pages count calendar days, newest first: ?from= and ?to= (YYYY-MM-DD,
// UTC; default the 30 days to today) bound the days, ?limit= days a page
// (1..100, default 31), and nextCursor (the next page's newest day, null
// on the last page) goes back as ?cursor=. Reading a page costs one round
// trip to the store, whatever the number of turns counted.
//
//	mux := http.NewServeMux()
//	usageapi.Register(mux, usageapi.Options{Store: st, IsOwner: isOwner})
package usageapi
