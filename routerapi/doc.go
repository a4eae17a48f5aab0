// Package routerapi serves the harness router's owner routes under
// /owner/router: the router's page (harnesses, states, today's counts),
// the choice, who answers each kind of turn, the owner's settings, pausing
// and resuming a harness, and the text-free receipts of routed turns.
// Only owners reach them; everyone else gets 404, as for anything they do
// not own. Changes are kept in the store, so every replica follows them
// at once.
package routerapi
