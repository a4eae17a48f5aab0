package relay

import (
	"context"

	"github.com/harnest/harnest/relay/tools"
	"github.com/harnest/harnest/store"
)

// itemCallback is an inbox item's "callback" member: its run note
// (tools.SignRunNote).
type itemCallback struct {
	RunNote string `json:"run_note"`
}

// itemCallbackFor is the callback member of an inbox item: nil while tools
// at home are off.
func (r *Relay) itemCallbackFor(ctx context.Context, p store.RelayParticipant, it store.RelayItem) (*itemCallback, error) {
	if r.home == nil {
		return nil, nil
	}
	key, err := r.home.NoteKey(ctx)
	if err != nil {
		return nil, err
	}
	return &itemCallback{RunNote: tools.SignRunNote(key, p.ID, it)}, nil
}

// issueCallback gives a just-paired participant its callback token ("" while
// tools at home are off), kept hashed as long as the participant. The
// owner's other participants of the same name and kind are the same agent
// paired before: pairing again ends their callback tokens.
func (r *Relay) issueCallback(ctx context.Context, p store.RelayParticipant) (string, error) {
	if r.home == nil {
		return "", nil
	}
	now := r.now()
	others, err := r.st.ListParticipants(ctx, p.Owner, now)
	if err != nil {
		return "", err
	}
	for _, o := range others {
		if o.ID != p.ID && o.Name == p.Name && o.Kind == p.Kind {
			if err := r.homeSt.EndRelayCallback(ctx, p.Owner, o.ID); err != nil {
				return "", err
			}
		}
	}
	token := tools.NewCallbackToken()
	err = r.homeSt.PutRelayCallback(ctx, store.RelayCallback{TokenHash: hashSecret(token), Owner: p.Owner,
		Participant: p.ID, ExpiresAt: p.ExpiresAt}, now)
	if err != nil {
		return "", err
	}
	return token, nil
}

// EndCallback ends a participant's callback token: pausing it does (the
// owner's pause route calls this), as disconnecting and pairing again do.
func (r *Relay) EndCallback(ctx context.Context, owner, participant string) error {
	if r.home == nil {
		return nil
	}
	return r.homeSt.EndRelayCallback(ctx, owner, participant)
}
