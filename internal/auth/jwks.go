package auth

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/harnest/harnest/internal/netguard"
)

// maxJWKSBytes bounds a JWKS document; real ones are a few kilobytes.
const maxJWKSBytes = 1 << 20

// jwksTimeout bounds one JWKS fetch.
const jwksTimeout = 10 * time.Second

// keySet is the identity provider's JWKS, fetched through netguard when a
// token first needs it and fetched again when a token names a key it does
// not hold (key rotation) or when the copy is older than maxAge. Fetches
// are at most one per minInterval, so tokens with made-up key IDs cannot
// make the server hammer the provider.
type keySet struct {
	url         string
	client      *http.Client
	minInterval time.Duration
	maxAge      time.Duration
	now         func() time.Time

	fetchMu sync.Mutex // one fetch at a time
	mu      sync.RWMutex
	set     jwk.Set   // nil until the first successful fetch
	fetched time.Time // when set was fetched
	tried   time.Time // when a fetch was last attempted
}

// lookup returns the key for kid (any key when kid is empty and the set
// holds exactly one), fetching the set when it has none yet, when it is
// stale, or once per minInterval when kid is unknown.
func (s *keySet) lookup(ctx context.Context, kid string) (jwk.Key, error) {
	set, fetched := s.current()
	if set == nil || s.now().Sub(fetched) > s.maxAge {
		err := s.refresh(ctx) // on failure the old set, if any, still answers
		if set, _ = s.current(); set == nil {
			return nil, err
		}
	}
	if key, ok := find(set, kid); ok {
		return key, nil
	}
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	set, _ = s.current()
	if key, ok := find(set, kid); ok {
		return key, nil
	}
	if kid == "" {
		return nil, tokenErrorf("the token has no kid header and the JWKS holds more than one key; the identity provider must name the signing key")
	}
	return nil, tokenErrorf("the token's signing key (kid) is not in the identity provider's JWKS, even after fetching it again")
}

func (s *keySet) current() (jwk.Set, time.Time) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set, s.fetched
}

// find returns the key of kid, or the only key when kid is empty.
func find(set jwk.Set, kid string) (jwk.Key, bool) {
	if set == nil {
		return nil, false
	}
	if kid == "" {
		if set.Len() != 1 {
			return nil, false
		}
		return set.Key(0)
	}
	return set.LookupKeyID(kid)
}

// refresh fetches the JWKS unless a fetch was attempted less than
// minInterval ago. The error is for the caller's 401 sentence; the reason
// of a failed fetch never names the URL's query (it may hold a key).
func (s *keySet) refresh(ctx context.Context) error {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	if !s.tried.IsZero() && s.now().Sub(s.tried) < s.minInterval {
		if set, _ := s.current(); set == nil {
			return tokenErrorf("the identity provider's JWKS could not be fetched; try again shortly")
		}
		return nil // fetched recently: the set is as fresh as it may be
	}
	s.tried = s.now()
	set, err := s.fetch(ctx)
	if err != nil {
		if cur, _ := s.current(); cur == nil {
			return tokenErrorf("the identity provider's JWKS could not be fetched (%v); try again shortly", err)
		}
		return nil
	}
	s.mu.Lock()
	s.set, s.fetched = set, s.now()
	s.mu.Unlock()
	return nil
}

// fetch downloads and parses the JWKS.
func (s *keySet) fetch(ctx context.Context) (jwk.Set, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := netguard.ReadLimited(resp, maxJWKSBytes)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the JWKS endpoint answered %d", resp.StatusCode)
	}
	set, err := jwk.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("the JWKS is not a valid key set: %w", err)
	}
	return set, nil
}
