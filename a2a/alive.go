package a2a

import (
	"context"

	"github.com/harnest/harnest/internal/alive"
)

// AliveExtensionURI is the NetShow "alive" agent card extension: the look
// an agent shows when agents meet (a house look, colors, a display name,
// and an optional .alive.json file). internal/alive validates it.
const AliveExtensionURI = alive.ExtensionURI

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver = alive.Resolver

// AliveOptions configure how alive_json is fetched at start-up, through
// the outbound guard (internal/netguard). The zero value is what
// production uses: the system resolver, a plain dialer, public addresses
// over https only, no redirects.
type AliveOptions = alive.Options

// checkAlive validates the card's alive extension and fetches alive_json
// once (alive.Check). A non-nil error says why the extension must be
// dropped from the served card.
func checkAlive(ctx context.Context, ext map[string]any, o AliveOptions) error {
	_, err := alive.Check(ctx, ext, o)
	return err
}
