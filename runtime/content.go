package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// resolveContent turns the request's input into the turn's content parts:
// one text part for a text input; for parts, text and data as given, a file
// by URL as given (never fetched), and each media part resolved to its
// asset in the session (its media type as inspected at upload). A part
// naming no asset of the session, or an asset of another kind, is invalid
// content input.
func (s *Service) resolveContent(ctx context.Context, p Principal, req ResponseRequest) ([]ContentInput, error) {
	if len(req.Parts) == 0 {
		return []ContentInput{{Type: "text", Text: req.Input}}, nil
	}
	out := make([]ContentInput, 0, len(req.Parts))
	for _, part := range req.Parts {
		switch {
		case part.Type == "text":
			out = append(out, ContentInput{Type: "text", Text: part.Text})
			continue
		case part.Type == "data":
			if !json.Valid(part.Data) {
				return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: a data part holds one JSON value")
			}
			out = append(out, ContentInput{Type: "data", Value: jsonwrite.Compact(part.Data)})
			media, err := s.typedMedia(ctx, p, req.SessionID, part.Data) // contract_media.go
			if err != nil {
				return nil, err
			}
			out = append(out, media...)
			continue
		case part.URL != "":
			if part.Type != "file" || !validFileURL(part.URL) {
				return nil, Errorf(ErrInvalid, "invalid_content", "Invalid content input: a file by URL is a file part with an absolute http, https or data URL")
			}
			out = append(out, ContentInput{Type: "file", URL: part.URL, MediaType: part.MediaType, Name: part.Name})
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
		c.Name = part.Name
		out = append(out, c)
	}
	return out, nil
}

// validFileURL reports whether a file part's URL is absolute and of a
// scheme a client can read (http, https, data).
func validFileURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "data":
		return true
	}
	return false
}

// AttachFile stores the bytes of a file a message carried (an A2A file
// part with bytes) as an asset of the user's session, under the asset
// store's limits and quotas, and returns the input part that names it. A
// media type that assets do not take, or that the content is not, makes it
// an opaque application/octet-stream asset; content that claims a
// supported type by its signature but is malformed is refused. Errors are
// UploadAsset's: ErrTooLarge past a limit or quota, ErrUnsupportedMedia,
// ErrNotFound for a session that does not exist.
func (s *Service) AttachFile(ctx context.Context, p Principal, sessionID, mediaType, name string, data []byte) (InputPart, error) {
	declared := NormalizeMediaType(mediaType)
	if declared == "" {
		declared = octetStream
	}
	info, err := s.UploadAsset(ctx, p, sessionID, declared, bytes.NewReader(data), 0)
	if errors.Is(err, ErrUnsupportedMedia) && declared != octetStream {
		info, err = s.UploadAsset(ctx, p, sessionID, octetStream, bytes.NewReader(data), 0)
	}
	if err != nil {
		return InputPart{}, err
	}
	return InputPart{Type: AssetKind(info.MediaType), AssetID: info.AssetID, Name: name}, nil
}

// octetStream is the media type of an opaque asset.
const octetStream = "application/octet-stream"
