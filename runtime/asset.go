package runtime

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/harnest/harnest/internal/media"
	"github.com/harnest/harnest/store"
)

// Asset limits. They are variables so that tests can lower them; a server
// never changes them.
var (
	// MaxAssetBytes bounds one asset (a transport may bound it lower).
	MaxAssetBytes int64 = 10 << 20
	// SessionAssetQuota bounds the bytes of one session's assets.
	SessionAssetQuota int64 = 100 << 20
	// UserAssetQuota bounds the bytes of all of one user's assets.
	UserAssetQuota int64 = 500 << 20
	// MaxAssetPixels bounds an image's width × height.
	MaxAssetPixels int64 = 16_000_000
	// MaxAssetSeconds bounds the known duration of audio and video.
	MaxAssetSeconds float64 = 300
)

// ErrUnsupportedMedia is the kind of an upload whose content type is
// missing, unsupported, not what the content is, or whose content is
// malformed. It is also an ErrInvalid, so a transport that does not know it
// answers as for invalid input; HTTP answers 415.
var ErrUnsupportedMedia = fmt.Errorf("unsupported media: %w", ErrInvalid)

var (
	errAssetNotFound    = &Error{Kind: ErrNotFound, Code: "asset_not_found", Detail: "Asset not found"}
	errAssetTypeMissing = &Error{Kind: ErrUnsupportedMedia, Code: "asset_content_type_required", Detail: "Asset Content-Type is required"}
	errAssetUnsupported = &Error{Kind: ErrUnsupportedMedia, Code: "asset_format_unsupported", Detail: "asset format is unsupported"}
	errAssetMismatch    = &Error{Kind: ErrUnsupportedMedia, Code: "asset_type_mismatch", Detail: "asset type does not match declared media type"}
	errAssetMalformed   = &Error{Kind: ErrUnsupportedMedia, Code: "asset_content_malformed", Detail: "asset content is malformed"}
	errAssetEmpty       = &Error{Kind: ErrInvalid, Code: "asset_empty", Detail: "The asset body is empty"}
)

// AssetInfo describes a stored asset: what every transport shows, with
// what inspection learned of the content (fields left out are unknown).
type AssetInfo struct {
	AssetID         string   `json:"assetId"`
	MediaType       string   `json:"mediaType"`
	SizeBytes       int64    `json:"sizeBytes"`
	Width           int      `json:"width,omitempty"`
	Height          int      `json:"height,omitempty"`
	DurationSeconds *float64 `json:"durationSeconds,omitempty"`
	PageCount       int      `json:"pageCount,omitempty"`
	FrameCount      int      `json:"frameCount,omitempty"`
	Channels        int      `json:"channels,omitempty"`
	SampleRateHz    int      `json:"sampleRateHz,omitempty"`
}

// NewAssetID returns a fresh asset ID: "asset_" and 24 URL-safe characters
// (144 random bits).
func NewAssetID() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return "asset_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// NormalizeMediaType returns a Content-Type's media type: parameters after
// ';' stripped, trimmed, lower case.
func NormalizeMediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// UploadAsset stores body as an asset of the user's session. declaredType
// is the media type the caller claims (parameters are ignored); the content
// must be of that type by its signature, in the supported list, well
// formed, and within the pixel and duration limits. maxBytes bounds the
// body when it is lower than MaxAssetBytes (<= 0: MaxAssetBytes).
//
// The checks run in this order: declared type (415), session (404), size
// (413), type match, support and form (415), pixels and duration (413),
// quotas (413).
func (s *Service) UploadAsset(ctx context.Context, p Principal, sessionID, declaredType string, body io.Reader, maxBytes int64) (AssetInfo, error) {
	declared := NormalizeMediaType(declaredType)
	if declared == "" {
		return AssetInfo{}, errAssetTypeMissing
	}
	exists, err := s.store.SessionExists(ctx, p.UserID, sessionID)
	if err != nil {
		return AssetInfo{}, s.storeFailure(err)
	}
	if !exists {
		return AssetInfo{}, errSessionNotFound
	}
	limit := MaxAssetBytes
	if maxBytes > 0 && maxBytes < limit {
		limit = maxBytes
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return AssetInfo{}, Errorf(ErrInvalid, "invalid_body", "The request body could not be read")
	}
	if int64(len(data)) > limit {
		return AssetInfo{}, Errorf(ErrTooLarge, "asset_too_large", "Asset exceeds %s", FormatBytes(limit))
	}
	if len(data) == 0 {
		return AssetInfo{}, errAssetEmpty
	}
	insp, err := inspectAsset(declared, data)
	if err != nil {
		return AssetInfo{}, err
	}
	info := assetInfoOf(NewAssetID(), int64(len(data)), insp)
	raw, _ := json.Marshal(info)
	err = s.store.PutAsset(ctx, p.UserID, sessionID, store.Asset{
		ID: info.AssetID, MediaType: info.MediaType, Info: raw, CreatedAt: s.timestamp(),
	}, data, store.AssetQuota{Session: SessionAssetQuota, User: UserAssetQuota})
	switch {
	case errors.Is(err, store.ErrSessionNotFound):
		return AssetInfo{}, errSessionNotFound
	case errors.Is(err, store.ErrSessionQuota):
		return AssetInfo{}, Errorf(ErrTooLarge, "asset_quota_exceeded",
			"The session's assets would exceed their %s quota; delete some first", FormatBytes(SessionAssetQuota))
	case errors.Is(err, store.ErrUserQuota):
		return AssetInfo{}, Errorf(ErrTooLarge, "asset_quota_exceeded",
			"Your assets would exceed their %s quota; delete some first", FormatBytes(UserAssetQuota))
	case err != nil:
		return AssetInfo{}, s.storeFailure(err)
	}
	return info, nil
}

// inspectAsset checks content against its declared type and the limits.
func inspectAsset(declared string, data []byte) (media.Info, error) {
	if !media.Supported(declared) {
		return media.Info{}, errAssetUnsupported
	}
	sniffed := media.Sniff(data)
	if sniffed != declared {
		return media.Info{}, errAssetMismatch
	}
	insp, err := media.Inspect(sniffed, data)
	if err != nil {
		return media.Info{}, errAssetMalformed
	}
	if strings.HasPrefix(insp.MediaType, "image/") && insp.Pixels() > MaxAssetPixels {
		return media.Info{}, Errorf(ErrTooLarge, "asset_too_many_pixels",
			"The image has %d×%d = %d pixels; the limit is %d", insp.Width, insp.Height, insp.Pixels(), MaxAssetPixels)
	}
	if insp.HasDuration && insp.Duration > MaxAssetSeconds {
		return media.Info{}, Errorf(ErrTooLarge, "asset_too_long",
			"The media lasts %.1f s; the limit is %g s", insp.Duration, MaxAssetSeconds)
	}
	return insp, nil
}

func assetInfoOf(id string, size int64, m media.Info) AssetInfo {
	info := AssetInfo{
		AssetID: id, MediaType: m.MediaType, SizeBytes: size,
		Width: m.Width, Height: m.Height, PageCount: m.PageCount, FrameCount: m.FrameCount,
		Channels: m.Channels, SampleRateHz: m.SampleRateHz,
	}
	if m.HasDuration {
		d := math.Round(m.Duration*1000) / 1000
		info.DurationSeconds = &d
	}
	return info
}

// AssetInfo describes one of the session's assets.
func (s *Service) AssetInfo(ctx context.Context, p Principal, sessionID, assetID string) (AssetInfo, error) {
	a, found, err := s.store.GetAsset(ctx, p.UserID, sessionID, assetID)
	if err != nil {
		return AssetInfo{}, s.storeFailure(err)
	}
	if !found {
		return AssetInfo{}, errAssetNotFound
	}
	return assetInfoFrom(a), nil
}

// ReadAsset reads up to length bytes of an asset from offset (only that
// range leaves the store), with the asset's description. A range past the
// end reads fewer bytes, or none.
func (s *Service) ReadAsset(ctx context.Context, p Principal, sessionID, assetID string, offset, length int64) ([]byte, AssetInfo, error) {
	if offset < 0 || length < 0 {
		return nil, AssetInfo{}, Errorf(ErrInvalid, "invalid_range", "Invalid asset range")
	}
	b, a, found, err := s.store.ReadAsset(ctx, p.UserID, sessionID, assetID, offset, length)
	if err != nil {
		return nil, AssetInfo{}, s.storeFailure(err)
	}
	if !found {
		return nil, AssetInfo{}, errAssetNotFound
	}
	return b, assetInfoFrom(a), nil
}

// DeleteAsset removes one of the session's assets and gives its bytes back
// to the quotas.
func (s *Service) DeleteAsset(ctx context.Context, p Principal, sessionID, assetID string) error {
	found, err := s.store.DeleteAsset(ctx, p.UserID, sessionID, assetID)
	if err != nil {
		return s.storeFailure(err)
	}
	if !found {
		return errAssetNotFound
	}
	return nil
}

// ResolveAsset turns a reference to one of the session's assets into a
// media content part with the inspected media type and size (whatever the
// caller claimed). Data reads the bytes when the agent asks for them; it
// fails with a not-found error if the asset was deleted since.
func (s *Service) ResolveAsset(ctx context.Context, p Principal, sessionID, assetID string) (ContentInput, error) {
	info, err := s.AssetInfo(ctx, p, sessionID, assetID)
	if err != nil {
		return ContentInput{}, err
	}
	return ContentInput{
		Type: AssetKind(info.MediaType), AssetID: info.AssetID,
		MediaType: info.MediaType, SizeBytes: info.SizeBytes,
		Data: func(ctx context.Context) ([]byte, error) {
			b, _, err := s.ReadAsset(ctx, p, sessionID, assetID, 0, info.SizeBytes)
			return b, err
		},
	}, nil
}

// AssetKind is the content part type of a media type: "image", "audio",
// "video", or "file" for everything else.
func AssetKind(mediaType string) string {
	for _, k := range []string{"image", "audio", "video"} {
		if strings.HasPrefix(mediaType, k+"/") {
			return k
		}
	}
	return "file"
}

func assetInfoFrom(a store.Asset) AssetInfo {
	var info AssetInfo
	_ = json.Unmarshal(a.Info, &info)
	// The store's own fields are authoritative.
	info.AssetID, info.MediaType, info.SizeBytes = a.ID, a.MediaType, a.Size
	return info
}
