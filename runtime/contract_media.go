package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
)

// Media in a typed input: a field of the input object may name an asset of
// the session as {"assetId": "..."} (the object may carry more members,
// such as a name). Each one must be an asset of the session; the agent
// gets it as a media content part after the data part, with the values the
// server inspected (its media type, size …), never the ones the caller
// claimed. A missing asset refuses the turn with invalid_content, naming
// the field's JSON Pointer.

// maxTypedMedia bounds the assets one typed input may name.
const maxTypedMedia = 64

// typedMedia resolves the assets a typed input names.
func (s *Service) typedMedia(ctx context.Context, p Principal, sessionID string, data json.RawMessage) ([]ContentInput, error) {
	if s.contract.InputSchema() == nil {
		return nil, nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil, nil
	}
	var refs []assetRef
	findAssets(v, "", &refs)
	if len(refs) == 0 {
		return nil, nil
	}
	if len(refs) > maxTypedMedia {
		return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: the input names %d assets; at most %d", len(refs), maxTypedMedia)
	}
	if sessionID == "" {
		return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: at %s: assets belong to an existing session; pass its sessionId", refs[0].pointer)
	}
	out := make([]ContentInput, 0, len(refs))
	for _, ref := range refs {
		c, err := s.ResolveAsset(ctx, p, sessionID, ref.id)
		if errors.Is(err, ErrNotFound) {
			return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: at %s: the session has no asset %q", ref.pointer, ref.id)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// assetRef is an {"assetId"} object of a typed input and where it is.
type assetRef struct{ pointer, id string }

// findAssets collects the objects with a string assetId under v, in
// pointer order.
func findAssets(v any, at string, out *[]assetRef) {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["assetId"].(string); ok && id != "" {
			*out = append(*out, assetRef{pointer: at, id: id})
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			findAssets(v[k], at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), out)
		}
	case []any:
		for i, item := range v {
			findAssets(item, at+"/"+strconv.Itoa(i), out)
		}
	}
}
