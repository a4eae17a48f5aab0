package server

import (
	"context"

	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/routerapi"
)

// Where a door or a helper needs a backend or another door, it declares
// the interface it needs and the composition root hands it the concrete
// value, so the arrows of TestLayers stay one way.

// ownerRouter gives the owner routes (routerapi) the router backend.
type ownerRouter struct{ *router.Router }

var _ routerapi.Router = ownerRouter{}

// Status is the router's owner page, which routerapi answers as JSON.
func (o ownerRouter) Status(ctx context.Context, user string) (any, error) {
	return o.Router.Status(ctx, user)
}

// Apply saves the owner's settings: routerapi's are the router's fields.
func (o ownerRouter) Apply(ctx context.Context, s routerapi.Settings) error {
	return o.Router.Apply(ctx, router.Settings(s))
}

// metricsSources are what the gauges read: the runtime and the counts the
// live and relay doors keep.
func (s *Server) metricsSources() metrics.Sources {
	src := metrics.Sources{Service: s.Service, RelayPolls: relay.OpenPolls, IsOwner: s.relay.IsOwner,
		Public: s.Folder.Config.Server.MetricsPublic}
	if s.live != nil {
		src.LiveSockets = s.live.Conns
	}
	return src
}
