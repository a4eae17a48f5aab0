package memstore

import "context"

// The relay's wake-ups: channels that let a waiting long poll sleep
// without reading the store (store.Relay).

// ListenRelayInbox signals whenever an item is enqueued for the
// participant or it is paused, resumed or disconnected.
func (p *relaySpace) ListenRelayInbox(_ context.Context, owner, participant string) (<-chan struct{}, func(), error) {
	if err := p.closed.check(); err != nil {
		return nil, nil, err
	}
	return p.listen(relayWake{'p', owner, participant})
}

// ListenRelayItem signals whenever the item is answered or cancelled.
func (p *relaySpace) ListenRelayItem(_ context.Context, owner, id string) (<-chan struct{}, func(), error) {
	if err := p.closed.check(); err != nil {
		return nil, nil, err
	}
	return p.listen(relayWake{'r', owner, id})
}

// ListenRelayFeed signals whenever an entry is appended to owner's feed.
func (p *relaySpace) ListenRelayFeed(_ context.Context, owner string) (<-chan struct{}, func(), error) {
	if err := p.closed.check(); err != nil {
		return nil, nil, err
	}
	return p.listen(relayWake{'f', owner, ""})
}

// listen adds a listener of w; stop removes it.
func (p *relaySpace) listen(w relayWake) (<-chan struct{}, func(), error) {
	ch := make(chan struct{}, 1)
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	if p.listeners[w] == nil {
		p.listeners[w] = map[chan struct{}]struct{}{}
	}
	p.listeners[w][ch] = struct{}{}
	return ch, func() {
		p.wakeMu.Lock()
		defer p.wakeMu.Unlock()
		if delete(p.listeners[w], ch); len(p.listeners[w]) == 0 {
			delete(p.listeners, w)
		}
	}, nil
}

// wake signals every listener of w without blocking (a channel that holds
// a signal needs no second one).
func (p *relaySpace) wake(w relayWake) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	for ch := range p.listeners[w] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
