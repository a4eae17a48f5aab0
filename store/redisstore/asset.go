package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// Asset keys live under the session's hash tag:
//
//	tag:ad:<id>     STRING the content (read with GETRANGE)
//	tag:am:<id>     HASH   mediaType, size, info, createdAt
//	tag:assets      SET    the session's asset IDs (escaped)
//	tag:assetBytes  STRING the bytes of the session's assets
//
// and the user's total under the user's tag, {u:user}:assetBytes; it is a
// quota counter only, updated in its own commands.
func (k sessionKeys) assetData(id string) string { return k.tag + ":ad:" + escapeID(id) }
func (k sessionKeys) assetMeta(id string) string { return k.tag + ":am:" + escapeID(id) }
func (k sessionKeys) assets() string             { return k.tag + ":assets" }
func (k sessionKeys) assetBytes() string         { return k.tag + ":assetBytes" }

func (s *Store) userAssetBytesKey(user string) string {
	return s.prefix + "{u:" + escapeID(user) + "}:assetBytes"
}

// reserveScript adds ARGV[1] bytes to the user's counter unless that takes
// it past ARGV[2] (when ARGV[2] > 0). Returns 1 when reserved.
var reserveScript = redis.NewScript(`
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
local limit = tonumber(ARGV[2])
if limit > 0 and n > limit then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  return 0
end
return 1
`)

// maxAssetRetries bounds the optimistic retries of an asset write whose
// watched keys changed (another upload, or a response touching the session).
const maxAssetRetries = 16

// errAssetReplaced means the asset a put replaces changed between the read
// of its size and the write (another put of the same ID): the put starts
// again with the new size.
var errAssetReplaced = errors.New("store: the asset changed during the put")

// PutAsset stores an asset of the user's session: its content and metadata,
// its entry in the session's set and its bytes in the session's and the
// user's counters. An asset stored again under the same ID replaces the
// old one, whose bytes stop counting. The session write is one MULTI/EXEC
// that Redis refuses if the session, its counter or the asset changed
// since they were checked, so an asset is never written into a deleted
// session nor past the session quota. The user's counter is reserved first
// (its own slot) and given back when the write does not happen.
//
// It returns ErrUserQuota, ErrSessionNotFound or ErrSessionQuota, checked
// in that order.
func (s *Store) PutAsset(ctx context.Context, user, session string, a store.Asset, data []byte, q store.AssetQuota) error {
	for range maxAssetRetries {
		err := s.putAssetOnce(ctx, user, session, a, data, q)
		if !errors.Is(err, errAssetReplaced) {
			return err
		}
	}
	return fmt.Errorf("store: put asset %q: other puts of the same ID kept replacing it (%d tries); retry", a.ID, maxAssetRetries)
}

// putAssetOnce is one try of PutAsset: it reads the size of the asset it
// replaces (0 when there is none), reserves the difference in the user's
// counter, and writes the session's part if that size is still the same;
// errAssetReplaced when it is not.
func (s *Store) putAssetOnce(ctx context.Context, user, session string, a store.Asset, data []byte, q store.AssetQuota) (err error) {
	size := int64(len(data))
	a.Size = size
	k := s.sessionKeys(user, session)
	metaKey := k.assetMeta(a.ID)
	old, err := assetSize(ctx, s.rdb, metaKey)
	if err != nil {
		return fmt.Errorf("store: put asset: %w", err)
	}
	delta := size - old
	uk := s.userAssetBytesKey(user)
	ok, err := reserveScript.Run(ctx, s.rdb, []string{uk}, delta, q.User).Int()
	if err != nil {
		return fmt.Errorf("store: reserve asset quota: %w", err)
	}
	if ok == 0 {
		return store.ErrUserQuota
	}
	defer func() {
		if err != nil { // give the reservation back, even if ctx ended
			_ = s.rdb.DecrBy(context.WithoutCancel(ctx), uk, delta).Err()
		}
	}()
	write := func(tx *redis.Tx) error {
		var exists *redis.IntCmd
		var used, current *redis.StringCmd
		if _, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			exists = p.Exists(ctx, k.meta)
			used = p.Get(ctx, k.assetBytes())
			current = p.HGet(ctx, metaKey, "size")
			return nil
		}); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if exists.Val() == 0 {
			return store.ErrSessionNotFound
		}
		if got, _ := strconv.ParseInt(current.Val(), 10, 64); got != old {
			return errAssetReplaced
		}
		n, _ := strconv.ParseInt(used.Val(), 10, 64)
		if q.Session > 0 && n+delta > q.Session {
			return store.ErrSessionQuota
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, k.assetData(a.ID), data, 0)
			p.HSet(ctx, metaKey, "mediaType", a.MediaType, "size", size, "info", a.Info, "createdAt", a.CreatedAt)
			p.SAdd(ctx, k.assets(), escapeID(a.ID))
			p.IncrBy(ctx, k.assetBytes(), delta)
			return nil
		})
		return err
	}
	for range maxAssetRetries {
		err = s.rdb.Watch(ctx, write, k.meta, k.assetBytes(), metaKey)
		if !errors.Is(err, redis.TxFailedErr) {
			break
		}
	}
	switch {
	case err == nil, errors.Is(err, store.ErrSessionNotFound), errors.Is(err, store.ErrSessionQuota),
		errors.Is(err, errAssetReplaced):
		return err
	}
	return fmt.Errorf("store: put asset: %w", err)
}

// assetSize reads the size an asset's metadata records; 0 when there is
// no such asset.
func assetSize(ctx context.Context, c redis.Cmdable, metaKey string) (int64, error) {
	v, err := c.HGet(ctx, metaKey, "size").Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n, nil
}

// GetAsset reads an asset's metadata; found is false when the user's
// session has no such asset.
func (s *Store) GetAsset(ctx context.Context, user, session, id string) (store.Asset, bool, error) {
	k := s.sessionKeys(user, session)
	meta, err := s.rdb.HGetAll(ctx, k.assetMeta(id)).Result()
	if err != nil {
		return store.Asset{}, false, fmt.Errorf("store: read asset: %w", err)
	}
	a, found := assetFrom(id, meta)
	return a, found, nil
}

// ReadAsset reads up to length bytes of an asset's content from offset
// (length < 0: to the end), with its metadata, in one round trip
// (GETRANGE: only the range is sent). A negative offset is an error.
func (s *Store) ReadAsset(ctx context.Context, user, session, id string, offset, length int64) ([]byte, store.Asset, bool, error) {
	if offset < 0 {
		return nil, store.Asset{}, false, fmt.Errorf("store: read asset: invalid offset %d (want 0 or more)", offset)
	}
	k := s.sessionKeys(user, session)
	var meta *redis.MapStringStringCmd
	var data *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HGetAll(ctx, k.assetMeta(id))
		switch {
		case length < 0: // to the end: GETRANGE's -1 is the last byte
			data = p.GetRange(ctx, k.assetData(id), offset, -1)
		case length > 0: // GETRANGE's end is inclusive: 0 bytes cannot be asked for
			data = p.GetRange(ctx, k.assetData(id), offset, offset+length-1)
		}
		return nil
	})
	if err != nil {
		return nil, store.Asset{}, false, fmt.Errorf("store: read asset: %w", err)
	}
	a, found := assetFrom(id, meta.Val())
	if !found {
		return nil, store.Asset{}, false, nil
	}
	var b []byte
	if data != nil {
		b = []byte(data.Val())
		want := max(a.Size-offset, 0) // the bytes from offset to the end
		if length >= 0 {
			want = min(length, want)
		}
		if int64(len(b)) < want {
			// The metadata outlived the content: deleted in between.
			return nil, store.Asset{}, false, nil
		}
	}
	return b, a, true, nil
}

// DeleteAsset removes an asset and gives its bytes back to the session's
// and the user's counters; found is false when there was none.
func (s *Store) DeleteAsset(ctx context.Context, user, session, id string) (found bool, err error) {
	k := s.sessionKeys(user, session)
	metaKey := k.assetMeta(id)
	var size int64
	del := func(tx *redis.Tx) error {
		v, err := tx.HGet(ctx, metaKey, "size").Result()
		if errors.Is(err, redis.Nil) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		size, _ = strconv.ParseInt(v, 10, 64)
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, k.assetData(id), metaKey)
			p.SRem(ctx, k.assets(), escapeID(id))
			p.DecrBy(ctx, k.assetBytes(), size)
			return nil
		})
		return err
	}
	for range maxAssetRetries {
		err = s.rdb.Watch(ctx, del, metaKey)
		if !errors.Is(err, redis.TxFailedErr) {
			break
		}
	}
	if err != nil {
		return false, fmt.Errorf("store: delete asset: %w", err)
	}
	if found && size > 0 {
		if err := s.rdb.DecrBy(ctx, s.userAssetBytesKey(user), size).Err(); err != nil {
			return true, fmt.Errorf("store: give back asset quota: %w", err)
		}
	}
	return found, nil
}

// AssetUsage reports the bytes of the session's assets and of all the
// user's assets.
func (s *Store) AssetUsage(ctx context.Context, user, session string) (sessionBytes, userBytes int64, err error) {
	k := s.sessionKeys(user, session)
	var sb, ub *redis.StringCmd
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		sb = p.Get(ctx, k.assetBytes())
		ub = p.Get(ctx, s.userAssetBytesKey(user))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, fmt.Errorf("store: read asset usage: %w", err)
	}
	sessionBytes, _ = strconv.ParseInt(sb.Val(), 10, 64)
	userBytes, _ = strconv.ParseInt(ub.Val(), 10, 64)
	return sessionBytes, userBytes, nil
}

// SessionExists reports whether the user has the session.
func (s *Store) SessionExists(ctx context.Context, user, session string) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.sessionKeys(user, session).meta).Result()
	if err != nil {
		return false, fmt.Errorf("store: read session: %w", err)
	}
	return n == 1, nil
}

func assetFrom(id string, meta map[string]string) (store.Asset, bool) {
	if len(meta) == 0 {
		return store.Asset{}, false
	}
	size, _ := strconv.ParseInt(meta["size"], 10, 64)
	return store.Asset{
		ID: id, MediaType: meta["mediaType"], Size: size,
		Info: []byte(meta["info"]), CreatedAt: meta["createdAt"],
	}, true
}
