package relay

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/internal/alive"
	"github.com/harnest/harnest/store"
)

// A participant's look comes from the alive extension of the card it
// pairs with (capabilities.extensions[], uri alive.ExtensionURI), checked
// exactly as an A2A card's is (internal/alive). An invalid extension is
// ignored whole and the pairing goes on with the standard outside-agent
// face; the owner's participant list and feed show a valid one.

// cardAlive returns the alive extension of an exchanged card, or nil when
// the card declares none (or its capabilities are not a mapping with a
// list of extensions).
func cardAlive(card map[string]json.RawMessage) map[string]any {
	raw, ok := card["capabilities"]
	if !ok {
		return nil
	}
	var caps struct {
		Extensions []any `json:"extensions"`
	}
	if json.Unmarshal(raw, &caps) != nil {
		return nil
	}
	ext, _, found := alive.Find(caps.Extensions)
	if !found {
		return nil
	}
	return ext
}

// cardLook checks a card's alive extension (fetching its alive_json once,
// through the outbound guard) and returns the look it shows: the zero look
// for none or for an invalid one, which is logged and ignored.
func (r *Relay) cardLook(ctx context.Context, ext map[string]any) store.RelayLook {
	if ext == nil {
		return store.RelayLook{}
	}
	l, err := alive.Check(ctx, ext, r.alive)
	if err != nil {
		r.log.Info("relay: the card's alive extension is ignored; the participant keeps the standard face", "why", err.Error())
		return store.RelayLook{}
	}
	return store.RelayLook{Look: l.Look, Line: l.Line, Background: l.Background, DisplayName: l.DisplayName}
}

// lookJSON is a participant's look as the owner sees it, in the alive
// extension's own shape.
type lookJSON struct {
	Look        string      `json:"look,omitempty"`
	Colors      *colorsJSON `json:"colors,omitempty"`
	DisplayName string      `json:"display_name,omitempty"`
}

// colorsJSON are a look's two colors.
type colorsJSON struct {
	Line       string `json:"line,omitempty"`
	Background string `json:"background,omitempty"`
}

// lookOut is l for the owner's routes; nil for the standard face.
func lookOut(l store.RelayLook) *lookJSON {
	if l == (store.RelayLook{}) {
		return nil
	}
	out := &lookJSON{Look: l.Look, DisplayName: l.DisplayName}
	if l.Line != "" || l.Background != "" {
		out.Colors = &colorsJSON{Line: l.Line, Background: l.Background}
	}
	return out
}

// participantLooks maps the IDs of owner's live participants to their
// looks, for the feed.
func (r *Relay) participantLooks(ctx context.Context, owner string) (map[string]store.RelayLook, error) {
	ps, err := r.st.ListParticipants(ctx, owner, r.now())
	if err != nil {
		return nil, err
	}
	looks := make(map[string]store.RelayLook, len(ps))
	for _, p := range ps {
		if p.Look != (store.RelayLook{}) {
			looks[p.ID] = p.Look
		}
	}
	return looks, nil
}
