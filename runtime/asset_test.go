package runtime

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/media/mediatest"
)

func TestAssetIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := NewAssetID()
		rest, ok := strings.CutPrefix(id, "asset_")
		if !ok || len(rest) < 22 || strings.Trim(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" || seen[id] {
			t.Fatalf("asset ID %q", id)
		}
		seen[id] = true
	}
}

func TestUploadAssetChecks(t *testing.T) {
	s := newTestService(t, nil, nil)
	ctx := context.Background()
	if _, err := s.CreateSession(ctx, testUser, "s", nil); err != nil {
		t.Fatal(err)
	}
	png := mediatest.PNG(4, 3)
	for _, c := range []struct {
		name, session, declared string
		body                    []byte
		max                     int64
		kind                    error
		code                    string
	}{
		{"no type", "s", " ; charset=x", png, 0, ErrUnsupportedMedia, "asset_content_type_required"},
		{"type before session", "nope", "", png, 0, ErrUnsupportedMedia, "asset_content_type_required"},
		{"no session", "nope", "image/png", png, 0, ErrNotFound, "session_not_found"},
		{"too large", "s", "image/png", png, 10, ErrTooLarge, "asset_too_large"},
		{"empty", "s", "application/octet-stream", nil, 0, ErrInvalid, "asset_empty"},
		{"unsupported", "s", "text/plain", []byte("hi"), 0, ErrUnsupportedMedia, "asset_format_unsupported"},
		{"mismatch", "s", "image/jpeg", png, 0, ErrUnsupportedMedia, "asset_type_mismatch"},
		{"png as opaque", "s", "application/octet-stream", png, 0, ErrUnsupportedMedia, "asset_type_mismatch"},
		{"malformed", "s", "image/png", png[:20], 0, ErrUnsupportedMedia, "asset_content_malformed"},
		{"pixels", "s", "image/png", mediatest.PNGHeader(4001, 4000), 0, ErrTooLarge, "asset_too_many_pixels"},
		{"duration", "s", "video/mp4", mediatest.MP4(1000, 300_001, 0, 0), 0, ErrTooLarge, "asset_too_long"},
	} {
		_, err := s.UploadAsset(ctx, testUser, c.session, c.declared, bytes.NewReader(c.body), c.max)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Code != c.code {
			t.Errorf("%s: %v (%#v), want %v %s", c.name, err, e, c.kind, c.code)
		}
	}
	if !errors.Is(errAssetMalformed, ErrInvalid) {
		t.Fatal("unsupported media is not also invalid input")
	}
	// Exactly at the limits is fine.
	if _, err := s.UploadAsset(ctx, testUser, "s", "image/png", bytes.NewReader(mediatest.PNGHeader(4000, 4000)), 0); err != nil {
		t.Fatal(err)
	}
	info, err := s.UploadAsset(ctx, testUser, "s", "video/mp4; codecs=avc1", bytes.NewReader(mediatest.MP4(1000, 300_000, 0, 0)), 0)
	if err != nil || info.DurationSeconds == nil || *info.DurationSeconds != 300 {
		t.Fatalf("%+v %v", info, err)
	}
}

func TestAssetReadDeleteResolve(t *testing.T) {
	s := newTestService(t, nil, nil)
	ctx := context.Background()
	if _, err := s.CreateSession(ctx, testUser, "s", nil); err != nil {
		t.Fatal(err)
	}
	wav := mediatest.WAV(8000, 1, 0.5)
	info, err := s.UploadAsset(ctx, testUser, "s", "Audio/WAV", bytes.NewReader(wav), 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.MediaType != "audio/wav" || info.SizeBytes != int64(len(wav)) || info.Channels != 1 || info.SampleRateHz != 8000 || *info.DurationSeconds != 0.5 {
		t.Fatalf("info %+v", info)
	}
	got, err := s.AssetInfo(ctx, testUser, "s", info.AssetID)
	if err != nil || got.AssetID != info.AssetID || *got.DurationSeconds != 0.5 || got.SampleRateHz != 8000 {
		t.Fatalf("AssetInfo %+v %v", got, err)
	}
	b, _, err := s.ReadAsset(ctx, testUser, "s", info.AssetID, 8, 4)
	if err != nil || string(b) != "WAVE" {
		t.Fatalf("read %q %v", b, err)
	}
	part, err := s.ResolveAsset(ctx, testUser, "s", info.AssetID)
	if err != nil || part.Type != "audio" || part.MediaType != "audio/wav" || part.SizeBytes != int64(len(wav)) {
		t.Fatalf("resolve %+v %v", part, err)
	}
	if data, err := part.Data(ctx); err != nil || !bytes.Equal(data, wav) {
		t.Fatalf("data %d bytes, %v", len(data), err)
	}
	other := Principal{UserID: "other"}
	if _, err := s.ResolveAsset(ctx, other, "s", info.AssetID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other user resolved: %v", err)
	}
	if err := s.DeleteAsset(ctx, other, "s", info.AssetID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("other user deleted: %v", err)
	}
	if err := s.DeleteAsset(ctx, testUser, "s", info.AssetID); err != nil {
		t.Fatal(err)
	}
	if _, err := part.Data(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("data of a deleted asset: %v", err)
	}
	if _, err := s.ResolveAsset(ctx, testUser, "s", info.AssetID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("resolve deleted: %v", err)
	}
	for mt, kind := range map[string]string{"image/png": "image", "video/webm": "video", "audio/mpeg": "audio", "application/pdf": "file", "application/octet-stream": "file"} {
		if AssetKind(mt) != kind {
			t.Errorf("AssetKind(%s) = %s", mt, AssetKind(mt))
		}
	}
}

func TestAssetQuotaErrors(t *testing.T) {
	defer func(s, u int64) { SessionAssetQuota, UserAssetQuota = s, u }(SessionAssetQuota, UserAssetQuota)
	s := newTestService(t, nil, nil)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, err := s.CreateSession(ctx, testUser, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	blob := bytes.Repeat([]byte{0}, 100) // opaque
	SessionAssetQuota, UserAssetQuota = 250, 300
	upload := func(session string) error {
		_, err := s.UploadAsset(ctx, testUser, session, "application/octet-stream", bytes.NewReader(blob), 0)
		return err
	}
	for i := 0; i < 2; i++ {
		if err := upload("a"); err != nil {
			t.Fatal(err)
		}
	}
	if err := upload("a"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "session's assets") {
		t.Fatalf("session quota: %v", err)
	}
	if err := upload("b"); err != nil {
		t.Fatal(err)
	}
	if err := upload("b"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Your assets") {
		t.Fatalf("user quota: %v", err)
	}
}
