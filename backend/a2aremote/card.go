package a2aremote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/harnest/harnest/internal/netguard"
)

// cardTTL is how long a fetched card (and the client built from it) is
// used before it is read again. A failed exchange drops it at once.
const cardTTL = 5 * time.Minute

// wellKnownCardPath is where an A2A agent serves its card.
const wellKnownCardPath = "/.well-known/agent-card.json"

// remote is the remote agent as this backend knows it: its card and a
// client for the interface chosen from it.
type remote struct {
	card   *a2a.AgentCard
	iface  *a2a.AgentInterface
	client *a2aclient.Client
	at     time.Time
	fresh  atomic.Bool // not logged yet
}

// streams reports whether the card says the agent streams.
func (r *remote) streams() bool { return r.card.Capabilities.Streaming }

// cardCache fetches the card and builds the client once per cardTTL.
type cardCache struct {
	cardURL string
	token   string
	policy  netguard.Policy
	http    *http.Client

	mu      sync.Mutex
	current *remote
}

// cardURL is where the card of the configured URL is: the URL itself when
// it names a .json document, else the URL's path joined with
// /.well-known/agent-card.json (the host's root for a bare host).
func cardURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(u.Path, ".json") {
		return u, nil
	}
	return u.JoinPath(wellKnownCardPath), nil
}

// get returns the cached remote, or reads the card and builds a client.
func (c *cardCache) get(ctx context.Context) (*remote, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != nil && time.Since(c.current.at) < cardTTL {
		return c.current, nil
	}
	r, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	c.current = r
	return r, nil
}

// drop forgets the cached remote, so that the next turn reads the card
// again (the agent may have moved).
func (c *cardCache) drop() {
	c.mu.Lock()
	c.current = nil
	c.mu.Unlock()
}

// load reads the card and builds a client for its best interface.
func (c *cardCache) load(ctx context.Context) (*remote, error) {
	card, err := c.fetch(ctx)
	if err != nil {
		return nil, err
	}
	iface, err := c.pick(card)
	if err != nil {
		return nil, err
	}
	chosen := *card
	chosen.SupportedInterfaces = []*a2a.AgentInterface{iface}
	opts := []a2aclient.FactoryOption{
		a2aclient.WithConfig(a2aclient.Config{}),
		a2aclient.WithJSONRPCTransport(c.http),
		a2aclient.WithRESTTransport(c.http),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: c.http}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: c.http}),
	}
	if c.token != "" {
		opts = append(opts, a2aclient.WithCallInterceptors(bearer{token: c.token}))
	}
	client, err := a2aclient.NewFromCard(ctx, &chosen, opts...)
	if err != nil {
		return nil, fmt.Errorf("a2a backend: no client for the card's interface %s %s: %w", iface.ProtocolBinding, iface.ProtocolVersion, err)
	}
	r := &remote{card: card, iface: iface, client: client, at: time.Now()}
	r.fresh.Store(true)
	return r, nil
}

// fetch reads and parses the card (either generation: a 1.0 card with
// supportedInterfaces, or a 0.3 card with url and preferredTransport).
func (c *cardCache) fetch(ctx context.Context) (*a2a.AgentCard, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cardURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := netguard.ReadLimited(resp, maxCardBytes)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &cardStatusError{status: resp.StatusCode}
	}
	card, err := a2av0.NewAgentCardParser()(body)
	if err != nil {
		return nil, fmt.Errorf("a2a backend: the agent card is not valid JSON: %w", err)
	}
	return card, nil
}

// cardStatusError is a card request answered with another status than 200.
type cardStatusError struct{ status int }

func (e *cardStatusError) Error() string {
	return fmt.Sprintf("a2a backend: the agent card request answered HTTP %d", e.status)
}

// errNoInterface: the card lists no interface harnest can use.
var errNoInterface = errors.New("a2a backend: the agent card lists no JSONRPC or HTTP+JSON interface of A2A 1.0 or 0.3 that the address guard allows")

// pick chooses the interface to use: A2A 1.0 before 0.3, then the card's
// own order, except that for 0.3 JSON-RPC comes before HTTP+JSON (0.3's
// HTTP+JSON bodies differ between SDKs: the a2a-go compat client sends
// snake_case JSON that @a2a-js/sdk 0.3 refuses, while JSON-RPC is the same
// everywhere); JSON-RPC and HTTP+JSON only, and only URLs the address
// guard allows.
func (c *cardCache) pick(card *a2a.AgentCard) (*a2a.AgentInterface, error) {
	var usable []*a2a.AgentInterface
	for _, iface := range card.SupportedInterfaces {
		if iface == nil || generation(iface.ProtocolVersion) < 0 {
			continue
		}
		if iface.ProtocolBinding != a2a.TransportProtocolJSONRPC && iface.ProtocolBinding != a2a.TransportProtocolHTTPJSON {
			continue
		}
		u, err := url.Parse(iface.URL)
		if err != nil || c.policy.CheckURL(u) != nil {
			continue
		}
		usable = append(usable, iface)
	}
	if len(usable) == 0 {
		return nil, errNoInterface
	}
	slices.SortStableFunc(usable, func(a, b *a2a.AgentInterface) int {
		if d := generation(b.ProtocolVersion) - generation(a.ProtocolVersion); d != 0 {
			return d
		}
		if generation(a.ProtocolVersion) == 0 {
			return bindingRank(a.ProtocolBinding) - bindingRank(b.ProtocolBinding)
		}
		return 0
	})
	return usable[0], nil
}

// bindingRank orders 0.3 bindings: JSON-RPC first.
func bindingRank(b a2a.TransportProtocol) int {
	if b == a2a.TransportProtocolJSONRPC {
		return 0
	}
	return 1
}

// generation is 1 for A2A 1.x, 0 for 0.3 (an empty version is 0.3, as
// the spec reads it), and -1 for anything else.
func generation(v a2a.ProtocolVersion) int {
	s := string(v)
	switch {
	case s == "" || s == "0.3" || strings.HasPrefix(s, "0.3."):
		return 0
	case s == "1" || strings.HasPrefix(s, "1."):
		return 1
	}
	return -1
}

// bearer sends the configured token as Authorization: Bearer on every
// call (the JSON-RPC and HTTP+JSON transports turn service parameters into
// headers; a redirect to another host drops it, as net/http does).
type bearer struct {
	a2aclient.PassthroughInterceptor
	token string
}

// Before adds the header.
func (b bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	req.ServiceParams["Authorization"] = []string{"Bearer " + b.token}
	return ctx, nil, nil
}
