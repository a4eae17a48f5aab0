package media

import "bytes"

// mp3Header is one decoded MPEG audio frame header.
type mp3Header struct {
	bitrate    int // bits per second; 0 for "free" bitrate
	sampleRate int
	channels   int
	samples    int // per frame
	length     int // bytes, header included; 0 when the bitrate is free
	sideInfo   int // bytes of side information after the header (layer III)
}

var mp3Bitrates = [2][3][15]int{
	{ // MPEG-1: layer I, II, III
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	},
	{ // MPEG-2 and 2.5
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	},
}

var mp3SampleRates = [4][3]int{
	{11025, 12000, 8000},  // MPEG-2.5
	{},                    // reserved
	{22050, 24000, 16000}, // MPEG-2
	{44100, 48000, 32000}, // MPEG-1
}

// parseMP3Header decodes the frame header at the start of b.
func parseMP3Header(b []byte) (mp3Header, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return mp3Header{}, false
	}
	version := (b[1] >> 3) & 3   // 0: 2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
	layerBits := (b[1] >> 1) & 3 // 1: III, 2: II, 3: I
	bitrateIdx := b[2] >> 4
	rateIdx := (b[2] >> 2) & 3
	if version == 1 || layerBits == 0 || bitrateIdx == 15 || rateIdx == 3 {
		return mp3Header{}, false
	}
	layer := 4 - int(layerBits) // 1, 2 or 3
	v := 1
	if version == 3 {
		v = 0
	}
	h := mp3Header{
		bitrate:    mp3Bitrates[v][layer-1][bitrateIdx] * 1000,
		sampleRate: mp3SampleRates[version][rateIdx],
		channels:   2,
	}
	if b[3]>>6 == 3 {
		h.channels = 1
	}
	padding := int(b[2]>>1) & 1
	switch {
	case layer == 1:
		h.samples = 384
	case layer == 3 && v == 1:
		h.samples = 576
	default:
		h.samples = 1152
	}
	if h.bitrate > 0 {
		if layer == 1 {
			h.length = (12*h.bitrate/h.sampleRate + padding) * 4
		} else {
			h.length = h.samples/8*h.bitrate/h.sampleRate + padding
		}
	}
	if layer == 3 {
		switch {
		case v == 0 && h.channels == 2:
			h.sideInfo = 32
		case v == 0:
			h.sideInfo = 17
		case h.channels == 2:
			h.sideInfo = 17
		default:
			h.sideInfo = 9
		}
	}
	return h, true
}

// mp3Scan bounds the search for the first frame after the ID3 tag.
const mp3Scan = 64 << 10

// inspectMP3 finds the first frame and computes the duration from a
// Xing/Info or VBRI header's frame count, or, for a constant bitrate (the
// next frame has the same bitrate), from the size. Otherwise the duration
// stays unknown.
func inspectMP3(b []byte) (Info, error) {
	start := 0
	if bytes.HasPrefix(b, []byte("ID3")) {
		if len(b) < 10 {
			return Info{}, ErrMalformed
		}
		size := int(b[6]&0x7F)<<21 | int(b[7]&0x7F)<<14 | int(b[8]&0x7F)<<7 | int(b[9]&0x7F)
		start = 10 + size
		if b[5]&0x10 != 0 { // footer
			start += 10
		}
	}
	var h mp3Header
	found := false
	for limit := min(len(b), start+mp3Scan); start < limit; start++ {
		if h, found = parseMP3Header(b[start:]); found {
			break
		}
	}
	if !found {
		return Info{}, ErrMalformed
	}
	info := Info{Channels: h.channels, SampleRateHz: h.sampleRate}
	frame := b[start:]
	if frames, ok := vbrFrames(frame, h); ok {
		info.Duration, info.HasDuration = float64(frames)*float64(h.samples)/float64(h.sampleRate), true
		return info, nil
	}
	if h.length == 0 {
		return info, nil // free bitrate: unknown
	}
	audio := len(frame)
	if audio >= 128 && bytes.HasPrefix(frame[audio-128:], []byte("TAG")) { // ID3v1 at the end
		audio -= 128
	}
	if h.length < audio { // a second frame must confirm a constant bitrate
		next, ok := parseMP3Header(frame[h.length:])
		if !ok || next.bitrate != h.bitrate || next.sampleRate != h.sampleRate {
			return info, nil
		}
	}
	info.Duration, info.HasDuration = float64(audio)*8/float64(h.bitrate), true
	return info, nil
}

// vbrFrames reads the frame count of a Xing/Info or VBRI header in the
// first frame.
func vbrFrames(frame []byte, h mp3Header) (int64, bool) {
	if h.sideInfo > 0 {
		x := 4 + h.sideInfo
		if len(frame) >= x+12 && (string(frame[x:x+4]) == "Xing" || string(frame[x:x+4]) == "Info") {
			if flags := be32(frame[x+4:]); flags&1 != 0 {
				if n := int64(be32(frame[x+8:])); n > 0 {
					return n, true
				}
			}
		}
	}
	if v := 4 + 32; len(frame) >= v+18 && string(frame[v:v+4]) == "VBRI" {
		if n := int64(be32(frame[v+14:])); n > 0 {
			return n, true
		}
	}
	return 0, false
}
