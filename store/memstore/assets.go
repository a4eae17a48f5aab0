package memstore

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/store"
)

// asset is a stored asset: its metadata and (a copy of) its content.
type asset struct {
	meta store.Asset
	data []byte
}

// PutAsset stores an asset of the user's session, with its bytes counted
// in the session's and the user's totals, under the session's lock (so an
// asset is never written into a deleted session nor past a quota). It
// returns ErrUserQuota, ErrSessionNotFound or ErrSessionQuota, checked in
// that order. An asset stored again under the same ID replaces the old
// one.
func (s *Store) PutAsset(ctx context.Context, user, session string, a store.Asset, data []byte, q store.AssetQuota) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	size := int64(len(data))
	a.Size = size
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	var old int64
	if sp != nil {
		if prev := sp.assets[a.ID]; prev != nil {
			old = prev.meta.Size
		}
	}
	if !s.users.reserveBytes(user, size-old, q.User) {
		return store.ErrUserQuota
	}
	switch {
	case sp == nil || !sp.hasSession:
		s.users.releaseBytes(user, size-old)
		return store.ErrSessionNotFound
	case q.Session > 0 && sp.assetBytes-old+size > q.Session:
		s.users.releaseBytes(user, size-old)
		return store.ErrSessionQuota
	}
	a.Info = copyBytes(a.Info)
	if sp.assets == nil {
		sp.assets = map[string]*asset{}
	}
	sp.assets[a.ID] = &asset{meta: a, data: copyBytes(data)}
	sp.assetBytes += size - old
	return nil
}

// GetAsset reads an asset's metadata; found is false when the user's
// session has no such asset.
func (s *Store) GetAsset(ctx context.Context, user, session, id string) (store.Asset, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.Asset{}, false, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || sp.assets[id] == nil {
		return store.Asset{}, false, nil
	}
	return sp.assets[id].meta, true, nil
}

// ReadAsset reads up to length bytes of an asset's content from offset
// (length < 0: to the end), with its metadata. The bytes are the stored
// ones.
func (s *Store) ReadAsset(ctx context.Context, user, session, id string, offset, length int64) ([]byte, store.Asset, bool, error) {
	if err := s.closed.check(); err != nil {
		return nil, store.Asset{}, false, err
	}
	if offset < 0 {
		return nil, store.Asset{}, false, fmt.Errorf("store: read asset: invalid offset %d", offset)
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || sp.assets[id] == nil {
		return nil, store.Asset{}, false, nil
	}
	a := sp.assets[id]
	n := int64(len(a.data))
	start := min(offset, n)
	end := n
	if length >= 0 {
		end = min(n, start+length)
	}
	if length == 0 {
		return nil, a.meta, true, nil
	}
	return a.data[start:end:end], a.meta, true, nil
}

// DeleteAsset removes an asset and gives its bytes back to the session's
// and the user's totals; found is false when there was none.
func (s *Store) DeleteAsset(ctx context.Context, user, session, id string) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || sp.assets[id] == nil {
		return false, nil
	}
	size := sp.assets[id].meta.Size
	delete(sp.assets, id)
	sp.assetBytes -= size
	s.users.releaseBytes(user, size)
	return true, nil
}

// AssetUsage reports the bytes of the session's assets and of all the
// user's assets.
func (s *Store) AssetUsage(ctx context.Context, user, session string) (sessionBytes, userBytes int64, err error) {
	if err := s.closed.check(); err != nil {
		return 0, 0, err
	}
	sh, sp := s.lockSpace(user, session)
	if sp != nil {
		sessionBytes = sp.assetBytes
	}
	sh.mu.Unlock()
	return sessionBytes, s.users.assetBytesOf(user), nil
}
