package runtime

// AnonymousUser is the user ID of every caller when no auth is configured.
const AnonymousUser = "_harnest_neutral"

// Principal is the caller a request resolved to, before it touches state.
// Everything a user owns is invisible to every other user.
type Principal struct {
	UserID string
}

// Anonymous is the principal of unauthenticated servers.
var Anonymous = Principal{UserID: AnonymousUser}
