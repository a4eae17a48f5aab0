package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harnest/harnest/store"
)

// An owner's relay feed of notices and stage items (store.Relay): the
// newest store.RelayFeedMax entries, oldest first, with IDs "<ms>-<seq>"
// as Redis stream IDs are.

// AppendRelayFeed appends an entry to owner's feed and wakes its listeners.
func (p *relaySpace) AppendRelayFeed(_ context.Context, owner string, e store.RelayFeedEntry) (string, error) {
	if err := p.closed.check(); err != nil {
		return "", err
	}
	e.Item = slices.Clone(e.Item)
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.owner(owner)
	if t := p.now().UnixMilli(); t > o.feedMS {
		o.feedMS, o.feedSeq = t, 0
	} else {
		o.feedSeq++
	}
	e.ID = strconv.FormatInt(o.feedMS, 10) + "-" + strconv.FormatInt(o.feedSeq, 10)
	if o.feed = append(o.feed, e); len(o.feed) > store.RelayFeedMax {
		o.feed = slices.Delete(o.feed, 0, len(o.feed)-store.RelayFeedMax)
	}
	p.wake(relayWake{'f', owner, ""})
	return e.ID, nil
}

// NewestRelayFeed returns the newest n entries of owner's feed, newest
// first.
func (p *relaySpace) NewestRelayFeed(_ context.Context, owner string, n int) ([]store.RelayFeedEntry, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	feed := p.owner(owner).feed
	out := slices.Clone(feed[max(0, len(feed)-n):])
	slices.Reverse(out)
	return out, nil
}

// RelayFeedAfter returns up to n entries of owner's feed after the ID
// after, oldest first.
func (p *relaySpace) RelayFeedAfter(_ context.Context, owner, after string, n int) ([]store.RelayFeedEntry, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	a, ok := parseRelayFeedID(after)
	if !ok {
		return nil, fmt.Errorf("store: %q is not a feed ID (two decimal numbers, \"<ms>-<seq>\")", after)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []store.RelayFeedEntry
	for _, e := range p.owner(owner).feed {
		if id, _ := parseRelayFeedID(e.ID); len(out) < n && cmp.Or(cmp.Compare(id[0], a[0]), cmp.Compare(id[1], a[1])) > 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// parseRelayFeedID reads "<ms>-<seq>" (or "<ms>", as Redis does).
func parseRelayFeedID(s string) ([2]uint64, bool) {
	a, b, hasSeq := strings.Cut(s, "-")
	x, err := strconv.ParseUint(a, 10, 64)
	var y uint64
	if err == nil && hasSeq {
		y, err = strconv.ParseUint(b, 10, 64)
	}
	return [2]uint64{x, y}, err == nil
}

// LastRelayFeedID is the ID of the newest entry of owner's feed, or "0-0".
func (p *relaySpace) LastRelayFeedID(_ context.Context, owner string) (string, error) {
	if err := p.closed.check(); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if feed := p.owner(owner).feed; len(feed) > 0 {
		return feed[len(feed)-1].ID, nil
	}
	return "0-0", nil
}
