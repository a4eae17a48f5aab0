// Package media recognises uploaded files by their signature and reads what
// can be known cheaply from their headers: dimensions, duration, pages,
// frames. It never decodes pixels or samples, so a small file cannot make it
// allocate much or run long; every parser bounds its work by the input.
package media

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"regexp"
)

// The media types an asset may have.
const (
	PDF   = "application/pdf"
	Octet = "application/octet-stream" // opaque: no signature recognised
	MP3   = "audio/mpeg"
	WAV   = "audio/wav"
	GIF   = "image/gif"
	JPEG  = "image/jpeg"
	PNG   = "image/png"
	WebP  = "image/webp"
	MP4   = "video/mp4"
	WebM  = "video/webm"
)

var supported = map[string]bool{
	PDF: true, Octet: true, MP3: true, WAV: true, GIF: true,
	JPEG: true, PNG: true, WebP: true, MP4: true, WebM: true,
}

// Supported reports whether assets may have the media type.
func Supported(mediaType string) bool { return supported[mediaType] }

// ErrMalformed means the content has a known signature but its structure
// cannot be read.
var ErrMalformed = errors.New("media: malformed content")

// Info is what inspection learned; zero fields are unknown.
type Info struct {
	MediaType     string
	Width, Height int
	// Duration in seconds; meaningful only when HasDuration.
	Duration     float64
	HasDuration  bool
	PageCount    int
	FrameCount   int
	Channels     int
	SampleRateHz int
}

// Pixels is Width×Height (0 when unknown).
func (i Info) Pixels() int64 { return int64(i.Width) * int64(i.Height) }

// Sniff names the content's media type from its signature: one of the
// supported types, another type this package recognises but assets do not
// accept (e.g. "image/avif"), or Octet when no signature matches.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return PDF
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return GIF
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return WebP
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return WAV
	case len(b) >= 12 && string(b[4:8]) == "ftyp":
		return ftypType(string(b[8:12]))
	case bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return ebmlType(b)
	case bytes.HasPrefix(b, []byte("ID3")):
		return MP3
	}
	if _, ok := parseMP3Header(b); ok {
		return MP3
	}
	return Octet
}

// ftypType maps an ISO base media file's major brand to its media type.
func ftypType(brand string) string {
	switch brand {
	case "avif", "avis":
		return "image/avif"
	case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1":
		return "image/heic"
	case "qt  ":
		return "video/quicktime"
	case "M4A ", "M4B ", "M4P ":
		return "audio/mp4"
	}
	return MP4
}

// inspectors read the content of each media type Inspect knows.
var inspectors = map[string]func([]byte) (Info, error){
	PNG: inspectPNG, GIF: inspectGIF, JPEG: inspectJPEG, WebP: inspectWebP,
	WAV: inspectWAV, MP3: inspectMP3, MP4: inspectMP4, WebM: inspectWebM, PDF: inspectPDF,
}

// Inspect reads the content of the given (sniffed) media type. It returns
// ErrMalformed when the structure is broken; fields it cannot learn stay
// zero.
func Inspect(mediaType string, b []byte) (Info, error) {
	var info Info
	if inspect := inspectors[mediaType]; inspect != nil {
		var err error
		if info, err = inspect(b); err != nil {
			return Info{}, err
		}
	}
	if info.HasDuration && (math.IsNaN(info.Duration) || math.IsInf(info.Duration, 0) || info.Duration < 0) {
		info.Duration, info.HasDuration = 0, false
	}
	info.MediaType = mediaType
	return info, nil
}

func inspectPNG(b []byte) (Info, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, ErrMalformed
	}
	return Info{Width: cfg.Width, Height: cfg.Height}, nil
}

// inspectGIF reads the logical screen and counts the image descriptors by
// walking the block structure, without decompressing any frame.
func inspectGIF(b []byte) (Info, error) {
	if len(b) < 13 {
		return Info{}, ErrMalformed
	}
	info := Info{Width: int(le16(b[6:])), Height: int(le16(b[8:]))}
	if info.Width == 0 || info.Height == 0 {
		return Info{}, ErrMalformed
	}
	p := 13
	if flags := b[10]; flags&0x80 != 0 {
		p += 3 << ((flags & 7) + 1)
	}
	// skipSubBlocks returns the offset after a run of data sub-blocks and
	// its terminator, or -1 when the run is cut off.
	skipSubBlocks := func(p int) int {
		for p < len(b) {
			n := int(b[p])
			p++
			if n == 0 {
				return p
			}
			p += n
		}
		return -1
	}
	for p < len(b) {
		switch b[p] {
		case 0x3B: // trailer
			p = len(b)
		case 0x21: // extension: label, then sub-blocks
			if p+2 > len(b) {
				return Info{}, ErrMalformed
			}
			if p = skipSubBlocks(p + 2); p < 0 {
				return Info{}, ErrMalformed
			}
		case 0x2C: // image descriptor
			if p+10 > len(b) {
				return Info{}, ErrMalformed
			}
			flags := b[p+9]
			p += 10
			if flags&0x80 != 0 {
				p += 3 << ((flags & 7) + 1)
			}
			p++ // LZW minimum code size
			if p > len(b) {
				return Info{}, ErrMalformed
			}
			if p = skipSubBlocks(p); p < 0 {
				return Info{}, ErrMalformed
			}
			info.FrameCount++
		default:
			return Info{}, ErrMalformed
		}
	}
	if info.FrameCount == 0 {
		return Info{}, ErrMalformed
	}
	return info, nil
}

// inspectJPEG walks the marker segments up to the first start-of-frame.
func inspectJPEG(b []byte) (Info, error) {
	p := 2 // after SOI
	for p < len(b) {
		if b[p] != 0xFF {
			return Info{}, ErrMalformed
		}
		for p < len(b) && b[p] == 0xFF { // fill bytes
			p++
		}
		if p >= len(b) {
			break
		}
		m := b[p]
		p++
		switch {
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7): // standalone markers
			continue
		case m == 0xD8 || m == 0xD9 || m == 0xDA || m == 0x00: // SOI again, EOI or scan before a frame
			return Info{}, ErrMalformed
		}
		if p+2 > len(b) {
			break
		}
		n := int(be16(b[p:]))
		if n < 2 || p+n > len(b) {
			return Info{}, ErrMalformed
		}
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			if n < 8 {
				return Info{}, ErrMalformed
			}
			h, w := int(be16(b[p+3:])), int(be16(b[p+5:]))
			if w == 0 || h == 0 {
				return Info{}, ErrMalformed
			}
			return Info{Width: w, Height: h}, nil
		}
		p += n
	}
	return Info{}, ErrMalformed
}

// inspectWebP reads the first chunk (VP8, VP8L or VP8X) for the canvas
// size and counts animation frames.
func inspectWebP(b []byte) (Info, error) {
	var info Info
	animated, first := false, true
	err := riffChunks(b, func(id string, data []byte, _ int) bool {
		if first {
			first = false
			switch id {
			case "VP8 ":
				if len(data) < 10 || data[0]&1 != 0 || data[3] != 0x9D || data[4] != 0x01 || data[5] != 0x2A {
					return false
				}
				info.Width, info.Height = int(le16(data[6:])&0x3FFF), int(le16(data[8:])&0x3FFF)
				return false
			case "VP8L":
				if len(data) < 5 || data[0] != 0x2F {
					return false
				}
				bits := uint32(data[1]) | uint32(data[2])<<8 | uint32(data[3])<<16 | uint32(data[4])<<24
				info.Width, info.Height = int(bits&0x3FFF)+1, int((bits>>14)&0x3FFF)+1
				return false
			case "VP8X":
				if len(data) < 10 {
					return false
				}
				animated = data[0]&0x02 != 0
				info.Width, info.Height = 1+int(le24(data[4:])), 1+int(le24(data[7:]))
				return animated
			}
			return false
		}
		if id == "ANMF" {
			info.FrameCount++
		}
		return true
	})
	if err != nil || info.Width == 0 || info.Height == 0 {
		return Info{}, ErrMalformed
	}
	if !animated {
		info.FrameCount = 0
	}
	return info, nil
}

// riffChunks calls fn for each chunk of a RIFF file until fn returns false;
// a chunk whose size runs past the end is cut to what is there (remaining
// reports the declared size that is missing, 0 when whole).
func riffChunks(b []byte, fn func(id string, data []byte, missing int) bool) error {
	if len(b) < 12 {
		return ErrMalformed
	}
	p := 12
	for p+8 <= len(b) {
		id := string(b[p : p+4])
		n := int64(le32(b[p+4:]))
		p += 8
		end := int64(p) + n
		missing := 0
		if end > int64(len(b)) {
			missing = int(end - int64(len(b)))
			end = int64(len(b))
		}
		if !fn(id, b[p:end], missing) {
			return nil
		}
		p = int(end)
		if n%2 == 1 { // chunks are padded to even sizes
			p++
		}
	}
	return nil
}

// inspectWAV reads the fmt chunk and the data chunk's size.
func inspectWAV(b []byte) (Info, error) {
	var info Info
	var byteRate, dataBytes int64
	haveFmt, haveData := false, false
	err := riffChunks(b, func(id string, data []byte, missing int) bool {
		switch id {
		case "fmt ":
			if len(data) < 16 {
				return false
			}
			haveFmt = true
			info.Channels = int(le16(data[2:]))
			info.SampleRateHz = int(le32(data[4:]))
			byteRate = int64(le32(data[8:]))
			if byteRate == 0 {
				byteRate = int64(le16(data[12:])) * int64(info.SampleRateHz)
			}
		case "data":
			haveData = true
			dataBytes = int64(len(data)) // a streamed WAV declares more than it has
			return false
		}
		return missing == 0
	})
	if err != nil || !haveFmt || !haveData || info.Channels == 0 || info.SampleRateHz == 0 || byteRate == 0 {
		return Info{}, ErrMalformed
	}
	info.Duration, info.HasDuration = float64(dataBytes)/float64(byteRate), true
	return info, nil
}

// pdfPage matches a page object's type entry but not "/Type /Pages".
var pdfPage = regexp.MustCompile(`/Type\s*/Page(?:[^A-Za-z0-9_]|$)`)

// pdfHeader is the version line every PDF starts with.
var pdfHeader = regexp.MustCompile(`^%PDF-\d\.\d`)

// inspectPDF counts page objects, best effort: pages inside compressed
// object streams are not seen, so the count is left unknown when zero.
func inspectPDF(b []byte) (Info, error) {
	if !pdfHeader.Match(b) {
		return Info{}, ErrMalformed
	}
	return Info{PageCount: len(pdfPage.FindAllIndex(b, -1))}, nil
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }
func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be64(b []byte) uint64 { return uint64(be32(b))<<32 | uint64(be32(b[4:])) }
