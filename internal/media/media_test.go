package media_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/harnest/harnest/internal/media"
	"github.com/harnest/harnest/internal/media/mediatest"
)

func TestSniffAndInspect(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want media.Info
	}{
		{"png", mediatest.PNG(3, 2), media.Info{MediaType: media.PNG, Width: 3, Height: 2}},
		{"png header only", mediatest.PNGHeader(5000, 4000), media.Info{MediaType: media.PNG, Width: 5000, Height: 4000}},
		{"jpeg", mediatest.JPEG(7, 5), media.Info{MediaType: media.JPEG, Width: 7, Height: 5}},
		{"gif", mediatest.GIF(4, 6, 3), media.Info{MediaType: media.GIF, Width: 4, Height: 6, FrameCount: 3}},
		{"webp", mediatest.WebP(640, 480), media.Info{MediaType: media.WebP, Width: 640, Height: 480}},
		{"wav", mediatest.WAV(8000, 2, 1.5), media.Info{MediaType: media.WAV, Channels: 2, SampleRateHz: 8000, Duration: 1.5, HasDuration: true}},
		{"mp4", mediatest.MP4(1000, 2500, 320, 240), media.Info{MediaType: media.MP4, Width: 320, Height: 240, Duration: 2.5, HasDuration: true}},
		{"mp4 without track", mediatest.MP4(600, 600*400, 0, 0), media.Info{MediaType: media.MP4, Duration: 400, HasDuration: true}},
		{"mp3 cbr", mediatest.MP3(10), media.Info{MediaType: media.MP3, Channels: 2, SampleRateHz: 44100, Duration: 4170 * 8 / 128000.0, HasDuration: true}},
		{"webm", mediatest.WebM(12.5, 160, 90), media.Info{MediaType: media.WebM, Width: 160, Height: 90, Duration: 12.5, HasDuration: true}},
		{"pdf", mediatest.PDF(3), media.Info{MediaType: media.PDF, PageCount: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mt := media.Sniff(c.b)
			if mt != c.want.MediaType {
				t.Fatalf("sniffed %q, want %q", mt, c.want.MediaType)
			}
			got, err := media.Inspect(mt, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Duration-c.want.Duration) < 1e-9 {
				got.Duration = c.want.Duration
			}
			if got != c.want {
				t.Fatalf("inspected %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestSniffOthers(t *testing.T) {
	for b, want := range map[string]string{
		"":                                     media.Octet,
		"hello world":                          media.Octet,
		"PK\x03\x04zip":                        media.Octet,
		"\x00\x00\x00\x18ftypheic\x00\x00":     "image/heic",
		"\x00\x00\x00\x18ftypavif\x00\x00":     "image/avif",
		"\x00\x00\x00\x14ftypqt  \x00\x00":     "video/quicktime",
		"\x1a\x45\xdf\xa3\x84\x42\x82\x81\x00": "video/x-matroska",
		"ID3\x04\x00\x00\x00\x00\x00\x00":      media.MP3,
	} {
		if got := media.Sniff([]byte(b)); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", b, got, want)
		}
	}
	if got := media.Sniff(mediatest.WebM(1, 1, 1)[:40]); got != media.WebM {
		t.Errorf("a cut WebM header sniffed as %q", got)
	}
}

func TestMalformed(t *testing.T) {
	png := mediatest.PNG(2, 2)
	badCRC := append([]byte{}, png...)
	badCRC[20] ^= 0xFF // inside IHDR
	gif := mediatest.GIF(2, 2, 1)
	wav := mediatest.WAV(8000, 1, 0.1)
	noFmt := append([]byte{}, wav...)
	copy(noFmt[12:16], "junk")
	mp4 := mediatest.MP4(1000, 1000, 0, 0)
	for name, c := range map[string]struct {
		mt string
		b  []byte
	}{
		"png cut":          {media.PNG, png[:12]},
		"png bad crc":      {media.PNG, badCRC},
		"gif cut":          {media.GIF, gif[:len(gif)-6]},
		"gif no frames":    {media.GIF, append(append([]byte{}, gif[:13+6]...), 0x3B)},
		"jpeg cut":         {media.JPEG, []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J'}},
		"jpeg scan first":  {media.JPEG, []byte{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02}},
		"webp no vp8":      {media.WebP, []byte("RIFF\x04\x00\x00\x00WEBP")},
		"wav no fmt":       {media.WAV, noFmt},
		"wav header only":  {media.WAV, wav[:12]},
		"mp4 box overruns": {media.MP4, mp4[:len(mp4)-3]},
		"mp4 no moov":      {media.MP4, mp4[:24]},
		"mp3 no frame":     {media.MP3, []byte("ID3\x04\x00\x00\x00\x00\x00\x00garbage")},
		"pdf no version":   {media.PDF, []byte("%PDF-x")},
		"webm bad header":  {media.WebM, []byte{0x1A, 0x45, 0xDF, 0xA3, 0x00}},
	} {
		if _, err := media.Inspect(c.mt, c.b); !errors.Is(err, media.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

func TestDurations(t *testing.T) {
	// An MP3 with a Xing header: the frame count gives the duration.
	frame := mediatest.MP3(1)
	copy(frame[36:], "Xing")
	binary.BigEndian.PutUint32(frame[40:], 1)
	binary.BigEndian.PutUint32(frame[44:], 100_000)
	info, err := media.Inspect(media.MP3, append(frame, mediatest.MP3(3)...))
	if err != nil || !info.HasDuration || math.Abs(info.Duration-100_000*1152/44100.0) > 1e-6 {
		t.Fatalf("xing: %+v %v", info, err)
	}
	// VBR without a header: the second frame differs, duration unknown.
	vbr := mediatest.MP3(2)
	vbr[417+2] = 0xA0
	if info, err := media.Inspect(media.MP3, vbr); err != nil || info.HasDuration {
		t.Fatalf("vbr: %+v %v", info, err)
	}
	// MP4 with an "unknown" duration.
	if info, err := media.Inspect(media.MP4, mediatest.MP4(1000, math.MaxUint32, 0, 0)); err != nil || info.HasDuration {
		t.Fatalf("mp4 unknown duration: %+v %v", info, err)
	}
	// A streamed WAV declares more data than it has: the duration is what
	// is there.
	wav := mediatest.WAV(8000, 1, 1)
	binary.LittleEndian.PutUint32(wav[40:], 0xFFFFFFF0)
	if info, err := media.Inspect(media.WAV, wav); err != nil || info.Duration != 1 {
		t.Fatalf("streamed wav: %+v %v", info, err)
	}
}

func FuzzSniff(f *testing.F) {
	for _, seed := range [][]byte{
		mediatest.PNG(2, 2), mediatest.JPEG(2, 2), mediatest.GIF(2, 2, 2), mediatest.WebP(3, 3),
		mediatest.WAV(8000, 1, 0.01), mediatest.MP4(1000, 1000, 2, 2), mediatest.MP3(2),
		mediatest.WebM(1, 2, 2), mediatest.PDF(1), []byte("ID3"), {0xFF, 0xFB}, {},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mt := media.Sniff(b)
		info, err := media.Inspect(mt, b)
		if err != nil {
			return
		}
		if info.MediaType != mt || info.Width < 0 || info.Height < 0 || info.FrameCount < 0 || info.PageCount < 0 {
			t.Fatalf("inspect %q: %+v", mt, info)
		}
		if info.HasDuration && (info.Duration < 0 || math.IsNaN(info.Duration) || math.IsInf(info.Duration, 0)) {
			t.Fatalf("duration %v", info.Duration)
		}
		// Every supported type inspects without panicking also when it is
		// not what the signature says.
		for _, other := range []string{media.PNG, media.GIF, media.JPEG, media.WebP, media.WAV, media.MP3, media.MP4, media.WebM, media.PDF} {
			_, _ = media.Inspect(other, b)
		}
	})
}
