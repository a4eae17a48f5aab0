package runtime

import (
	"context"
	"errors"
)

// resolveContent turns the request's input into the turn's content parts:
// one text part for a text input; for parts, text as given and each media
// part resolved to its asset in the session (its media type as inspected
// at upload). A part naming no asset of the session, or an asset of another
// kind, is invalid content input.
func (s *Service) resolveContent(ctx context.Context, p Principal, req ResponseRequest) ([]ContentInput, error) {
	if len(req.Parts) == 0 {
		return []ContentInput{{Type: "text", Text: req.Input}}, nil
	}
	out := make([]ContentInput, 0, len(req.Parts))
	for _, part := range req.Parts {
		if part.Type == "text" {
			out = append(out, ContentInput{Type: "text", Text: part.Text})
			continue
		}
		if req.SessionID == "" {
			return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: media parts name assets of an existing session; pass its sessionId")
		}
		c, err := s.ResolveAsset(ctx, p, req.SessionID, part.AssetID)
		if errors.Is(err, ErrNotFound) {
			return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: the session has no asset %q", part.AssetID)
		}
		if err != nil {
			return nil, err
		}
		if c.Type != part.Type {
			return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: asset %q is %s, not %s", part.AssetID, c.MediaType, part.Type)
		}
		out = append(out, c)
	}
	return out, nil
}
