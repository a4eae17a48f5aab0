package redisstore

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// feedEntryJSON is how a feed entry is kept in the stream's field "e".
type feedEntryJSON struct {
	Participant string          `json:"participant_id"`
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	Item        json.RawMessage `json:"item,omitempty"`
	At          string          `json:"at"`
}

// AppendRelayFeed appends an entry to owner's feed and wakes its
// listeners, in one round trip.
func (s *Store) AppendRelayFeed(ctx context.Context, owner string, e store.RelayFeedEntry) (string, error) {
	if len(e.Item) > 0 && !json.Valid(e.Item) {
		return "", errors.New("store: a feed entry's item must be JSON")
	}
	b, err := json.Marshal(feedEntryJSON{Participant: e.Participant, Name: e.Name, Kind: e.Kind, Type: e.Type,
		Text: e.Text, Item: e.Item, At: e.At})
	if err != nil {
		return "", err
	}
	var add *redis.StringCmd
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		add = p.XAdd(ctx, &redis.XAddArgs{Stream: s.relayFeedKey(owner), MaxLen: store.RelayFeedMax, Approx: true,
			Values: []any{"e", string(b)}})
		p.Publish(ctx, s.relayWakeChannel(), relayWakeFeed(owner))
	})
	if err != nil {
		return "", err
	}
	return add.Val(), nil
}

// feedFrom decodes stream messages; a message that is not an entry is
// skipped.
func feedFrom(msgs []redis.XMessage) []store.RelayFeedEntry {
	out := make([]store.RelayFeedEntry, 0, len(msgs))
	for _, m := range msgs {
		raw, _ := m.Values["e"].(string)
		var e feedEntryJSON
		if json.Unmarshal([]byte(raw), &e) != nil {
			continue
		}
		out = append(out, store.RelayFeedEntry{ID: m.ID, Participant: e.Participant, Name: e.Name, Kind: e.Kind,
			Type: e.Type, Text: e.Text, Item: e.Item, At: e.At})
	}
	return out
}

// NewestRelayFeed returns the newest n entries of owner's feed, newest
// first.
func (s *Store) NewestRelayFeed(ctx context.Context, owner string, n int) ([]store.RelayFeedEntry, error) {
	msgs, err := s.rdb.XRevRangeN(ctx, s.relayFeedKey(owner), "+", "-", int64(n)).Result()
	if err != nil {
		return nil, err
	}
	return feedFrom(msgs), nil
}

// RelayFeedAfter returns up to n entries of owner's feed after the ID
// after, oldest first.
func (s *Store) RelayFeedAfter(ctx context.Context, owner, after string, n int) ([]store.RelayFeedEntry, error) {
	res, err := s.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{s.relayFeedKey(owner), after}, Count: int64(n), Block: -1}).Result()
	if errors.Is(err, redis.Nil) || err == nil && len(res) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return feedFrom(res[0].Messages), nil
}

// LastRelayFeedID is the ID of the newest entry of owner's feed, or "0-0".
func (s *Store) LastRelayFeedID(ctx context.Context, owner string) (string, error) {
	msgs, err := s.rdb.XRevRangeN(ctx, s.relayFeedKey(owner), "+", "-", 1).Result()
	if err != nil || len(msgs) == 0 {
		return "0-0", err
	}
	return msgs[0].ID, nil
}
