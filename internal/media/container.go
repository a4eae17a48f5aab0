package media

import (
	"encoding/binary"
	"math"
)

// box is one ISO base media file box: its type and payload.
type box struct {
	typ     string
	payload []byte
}

// mp4Boxes splits b into boxes; ok is false when a size is impossible or a
// box runs past the end.
func mp4Boxes(b []byte, fn func(box) bool) bool {
	for p := 0; p < len(b); {
		if p+8 > len(b) {
			return false
		}
		size := uint64(be32(b[p:]))
		typ := string(b[p+4 : p+8])
		header := uint64(8)
		switch size {
		case 0: // to the end
			size = uint64(len(b) - p)
		case 1: // 64-bit size follows
			if p+16 > len(b) {
				return false
			}
			size, header = be64(b[p+8:]), 16
		}
		if size < header || size > uint64(len(b)-p) {
			return false
		}
		if !fn(box{typ: typ, payload: b[p+int(header) : p+int(size)]}) {
			return true
		}
		p += int(size)
	}
	return true
}

// maxBoxDepth bounds recursion into nested boxes.
const maxBoxDepth = 8

// inspectMP4 reads the movie header (mvhd) for the duration and the first
// track header (tkhd) with a size for the dimensions.
func inspectMP4(b []byte) (Info, error) {
	var info Info
	var moov []byte
	fragmented := false
	if !mp4Boxes(b, func(x box) bool {
		if x.typ == "moov" && moov == nil {
			moov = x.payload
		}
		return true
	}) || moov == nil {
		return Info{}, ErrMalformed
	}
	var walk func(b []byte, depth int) bool
	walk = func(b []byte, depth int) bool {
		return mp4Boxes(b, func(x box) bool {
			p := x.payload
			switch x.typ {
			case "mvex":
				fragmented = true
			case "mvhd":
				var timescale uint32
				var duration uint64
				unknown := false
				switch {
				case len(p) >= 20 && p[0] == 0:
					timescale, duration = be32(p[12:]), uint64(be32(p[16:]))
					unknown = duration == math.MaxUint32
				case len(p) >= 32 && p[0] == 1:
					timescale, duration = be32(p[20:]), be64(p[24:])
					unknown = duration == math.MaxUint64
				}
				if timescale > 0 && !unknown {
					info.Duration, info.HasDuration = float64(duration)/float64(timescale), true
				}
			case "trak", "mdia":
				if depth < maxBoxDepth {
					walk(p, depth+1)
				}
			case "tkhd":
				off := 76 // width and height are the last two 16.16 fields
				if len(p) > 0 && p[0] == 1 {
					off = 88
				}
				if info.Width == 0 && len(p) >= off+8 {
					w, h := int(be32(p[off:])>>16), int(be32(p[off+4:])>>16)
					if w > 0 && h > 0 {
						info.Width, info.Height = w, h
					}
				}
			}
			return true
		})
	}
	if !walk(moov, 0) {
		return Info{}, ErrMalformed
	}
	if fragmented && info.HasDuration && info.Duration == 0 {
		info.HasDuration = false // the fragments carry the duration
	}
	return info, nil
}

// EBML element IDs (with their length marker bits) used below.
const (
	ebmlHeader        = 0x1A45DFA3
	ebmlDocType       = 0x4282
	mkvSegment        = 0x18538067
	mkvInfo           = 0x1549A966
	mkvTimecodeScale  = 0x2AD7B1
	mkvDuration       = 0x4489
	mkvTracks         = 0x1654AE6B
	mkvTrackEntry     = 0xAE
	mkvVideo          = 0xE0
	mkvPixelWidth     = 0xB0
	mkvPixelHeight    = 0xBA
	mkvCluster        = 0x1F43B675
	ebmlUnknownLength = -1
)

// ebmlVint reads a variable-length integer at b[p:]. For IDs the marker
// bit is kept; for sizes it is removed and an all-ones value means an
// unknown size (returned as ebmlUnknownLength).
func ebmlVint(b []byte, p int, id bool) (v int64, next int, ok bool) {
	if p >= len(b) || b[p] == 0 {
		return 0, 0, false
	}
	n := 1
	for mask := byte(0x80); b[p]&mask == 0; mask >>= 1 {
		n++
	}
	if n > 8 || (id && n > 4) || p+n > len(b) {
		return 0, 0, false
	}
	u := uint64(b[p])
	if !id {
		u &= uint64(0xFF >> n)
	}
	allOnes := u == uint64(0xFF>>n)
	for i := 1; i < n; i++ {
		u = u<<8 | uint64(b[p+i])
		allOnes = allOnes && b[p+i] == 0xFF
	}
	if !id && allOnes {
		return ebmlUnknownLength, p + n, true
	}
	if u > math.MaxInt64 {
		return 0, 0, false
	}
	return int64(u), p + n, true
}

// ebmlElements calls fn for each element of b until fn returns false. An
// element of unknown size extends to the end of b. ok is false when the
// structure cannot be read.
func ebmlElements(b []byte, fn func(id int64, data []byte) bool) bool {
	for p := 0; p < len(b); {
		id, q, ok := ebmlVint(b, p, true)
		if !ok {
			return false
		}
		size, q, ok := ebmlVint(b, q, false)
		if !ok {
			return false
		}
		end := int64(len(b))
		if size != ebmlUnknownLength {
			if size > int64(len(b)-q) {
				end = int64(len(b)) // cut off: let fn see what is there
			} else {
				end = int64(q) + size
			}
		}
		if !fn(id, b[q:end]) {
			return true
		}
		p = int(end)
	}
	return true
}

// ebmlType reads the EBML header's DocType: "webm" is video/webm, anything
// else Matroska.
func ebmlType(b []byte) string {
	doc := "matroska" // the default DocType
	ok := ebmlElements(b, func(id int64, data []byte) bool {
		if id != ebmlHeader {
			return false
		}
		ebmlElements(data, func(id int64, data []byte) bool {
			if id == ebmlDocType {
				doc = string(data)
				return false
			}
			return true
		})
		return false
	})
	if ok && doc == "webm" {
		return WebM
	}
	return "video/x-matroska"
}

// inspectWebM reads the segment's Info (duration) and the first video
// track's pixel size; anything missing stays unknown. Only the EBML header
// must be readable.
func inspectWebM(b []byte) (Info, error) {
	var info Info
	sawHeader := false
	var segment []byte
	ebmlElements(b, func(id int64, data []byte) bool {
		switch id {
		case ebmlHeader:
			sawHeader = true
		case mkvSegment:
			segment = data
			return false
		}
		return true
	})
	if !sawHeader {
		return Info{}, ErrMalformed
	}
	scale, duration, haveDuration := uint64(1_000_000), 0.0, false
	ebmlElements(segment, func(id int64, data []byte) bool {
		switch id {
		case mkvInfo:
			ebmlElements(data, func(id int64, data []byte) bool {
				switch id {
				case mkvTimecodeScale:
					if s := ebmlUint(data); s > 0 {
						scale = s
					}
				case mkvDuration:
					switch len(data) {
					case 4:
						duration, haveDuration = float64(math.Float32frombits(binary.BigEndian.Uint32(data))), true
					case 8:
						duration, haveDuration = math.Float64frombits(binary.BigEndian.Uint64(data)), true
					}
				}
				return true
			})
		case mkvTracks:
			ebmlElements(data, func(id int64, data []byte) bool {
				if id == mkvTrackEntry && info.Width == 0 {
					ebmlElements(data, func(id int64, data []byte) bool {
						if id == mkvVideo {
							ebmlElements(data, func(id int64, data []byte) bool {
								switch id {
								case mkvPixelWidth:
									info.Width = int(min(ebmlUint(data), math.MaxInt32))
								case mkvPixelHeight:
									info.Height = int(min(ebmlUint(data), math.MaxInt32))
								}
								return true
							})
						}
						return true
					})
				}
				return true
			})
		case mkvCluster:
			return false // the media data: everything needed comes before it
		}
		return true
	})
	if info.Width == 0 || info.Height == 0 {
		info.Width, info.Height = 0, 0
	}
	if haveDuration {
		info.Duration, info.HasDuration = duration*float64(scale)/1e9, true
	}
	return info, nil
}

// ebmlUint reads an unsigned integer element (up to 8 bytes).
func ebmlUint(b []byte) uint64 {
	if len(b) > 8 {
		return 0
	}
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u
}
