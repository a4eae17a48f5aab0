package memstore

import (
	"cmp"
	"context"
	"time"
)

// requestsSpace is the in-process store's Open Responses request records,
// by user, session and response, each dropped ttl after its put (a
// recordsPart).
type requestsSpace struct {
	*recordsPart[requestKey, []byte]
}

// requestKey names one response's record.
type requestKey struct{ user, session, id string }

func requestKeyLess(a, b requestKey) bool {
	return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.session, b.session), cmp.Compare(a.id, b.id)) < 0
}

// newRequestsSpace makes the request records' part; records last ttl
// after their put.
func newRequestsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *requestsSpace {
	return &requestsSpace{newRecordsPart[requestKey, []byte](now, ttl, closed, requestKeyLess)}
}

// GetResponseRequest reads the record of a response.
func (p *requestsSpace) GetResponseRequest(ctx context.Context, user, session, id string) ([]byte, bool, error) {
	rec, ok, err := p.get(requestKey{user, session, id})
	return append([]byte(nil), rec...), ok, err
}

// PutResponseRequest keeps (or replaces) the record of a response.
func (p *requestsSpace) PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error {
	return p.put(requestKey{user, session, id}, append([]byte(nil), rec...))
}
