// Package mediatest builds tiny valid media files for tests.
package mediatest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
)

// PNG encodes a w×h image.
func PNG(w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// PNGHeader is a PNG signature and an IHDR chunk declaring w×h, without any
// image data: enough for the header, not for a decoder.
func PNGHeader(w, h uint32) []byte {
	full := PNG(1, 1)
	ihdr := full[8 : 8+25]
	out := append([]byte{}, full[:8]...)
	chunk := append([]byte{}, ihdr...)
	binary.BigEndian.PutUint32(chunk[8:], w)
	binary.BigEndian.PutUint32(chunk[12:], h)
	binary.BigEndian.PutUint32(chunk[21:], crc32.ChecksumIEEE(chunk[4:21]))
	return append(out, chunk...)
}

// JPEG encodes a w×h image.
func JPEG(w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// GIF encodes frames frames of w×h.
func GIF(w, h, frames int) []byte {
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	for i := 0; i < frames; i++ {
		g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, w, h), pal))
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WAV is 16-bit PCM silence of the given length.
func WAV(sampleRate, channels int, seconds float64) []byte {
	blockAlign := channels * 2
	data := make([]byte, int(float64(sampleRate)*seconds)*blockAlign)
	var b bytes.Buffer
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(36+len(data)))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{
		uint32(16), uint16(1), uint16(channels), uint32(sampleRate),
		uint32(sampleRate * blockAlign), uint16(blockAlign), uint16(16),
	} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

func mp4Box(typ string, payload ...[]byte) []byte {
	body := bytes.Join(payload, nil)
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	out = append(out, typ...)
	return append(out, body...)
}

// MP4 is an ftyp box and a moov box with a version 0 mvhd (timescale,
// duration) and, when w and h are not zero, a track whose tkhd has that size.
func MP4(timescale, duration uint32, w, h uint16) []byte {
	ftyp := mp4Box("ftyp", []byte("isom"), []byte{0, 0, 2, 0}, []byte("isomiso2mp41"))
	mvhd := make([]byte, 100)
	binary.BigEndian.PutUint32(mvhd[12:], timescale)
	binary.BigEndian.PutUint32(mvhd[16:], duration)
	binary.BigEndian.PutUint32(mvhd[20:], 0x00010000) // rate 1.0
	moov := [][]byte{mp4Box("mvhd", mvhd)}
	if w != 0 && h != 0 {
		tkhd := make([]byte, 84)
		binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
		binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
		moov = append(moov, mp4Box("trak", mp4Box("tkhd", tkhd)))
	}
	return append(ftyp, mp4Box("moov", moov...)...)
}

// PDF is a minimal document with the given number of pages.
func PDF(pages int) []byte {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n")
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", i+3)
	}
	fmt.Fprintf(&b, "2 0 obj << /Type /Pages /Kids [%s] /Count %d >> endobj\n", strings.Join(kids, " "), pages)
	for i := 0; i < pages; i++ {
		fmt.Fprintf(&b, "%d 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\n", i+3)
	}
	b.WriteString("trailer << /Root 1 0 R >>\n%%EOF\n")
	return []byte(b.String())
}

// MP3 is frames MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz, stereo,
// without padding: 417 bytes and 1152 samples each.
func MP3(frames int) []byte {
	frame := make([]byte, 417)
	copy(frame, []byte{0xFF, 0xFB, 0x90, 0x00})
	return bytes.Repeat(frame, frames)
}

// WebP is a lossless (VP8L) header for a w×h image.
func WebP(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	vp8l := append([]byte{0x2F}, binary.LittleEndian.AppendUint32(nil, bits)...)
	vp8l = append(vp8l, 0, 0, 0) // a few bytes of (meaningless) image data
	chunk := append([]byte("VP8L"), binary.LittleEndian.AppendUint32(nil, uint32(len(vp8l)))...)
	chunk = append(chunk, vp8l...)
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(chunk)))...)
	out = append(out, "WEBP"...)
	return append(out, chunk...)
}

func ebml(id uint32, payload ...[]byte) []byte {
	body := bytes.Join(payload, nil)
	var out []byte
	switch {
	case id > 0xFFFFFF:
		out = binary.BigEndian.AppendUint32(nil, id)
	case id > 0xFFFF:
		out = []byte{byte(id >> 16), byte(id >> 8), byte(id)}
	case id > 0xFF:
		out = []byte{byte(id >> 8), byte(id)}
	default:
		out = []byte{byte(id)}
	}
	// an 8-byte size: 0x01 then 7 bytes
	size := binary.BigEndian.AppendUint64(nil, uint64(len(body)))
	size[0] = 0x01
	out = append(out, size...)
	return append(out, body...)
}

// WebM is an EBML header (DocType webm) and a segment whose Info has the
// duration in seconds (timecode scale 1 ms) and one w×h video track.
func WebM(seconds float64, w, h uint16) []byte {
	header := ebml(0x1A45DFA3, ebml(0x4286, []byte{1}), ebml(0x4282, []byte("webm")))
	info := ebml(0x1549A966,
		ebml(0x2AD7B1, []byte{0x0F, 0x42, 0x40}), // 1,000,000 ns
		ebml(0x4489, binary.BigEndian.AppendUint64(nil, math.Float64bits(seconds*1000))))
	tracks := ebml(0x1654AE6B, ebml(0xAE, ebml(0xD7, []byte{1}), ebml(0xE0,
		ebml(0xB0, binary.BigEndian.AppendUint16(nil, w)),
		ebml(0xBA, binary.BigEndian.AppendUint16(nil, h)))))
	cluster := ebml(0x1F43B675, ebml(0xE7, []byte{0}))
	return append(header, ebml(0x18538067, info, tracks, cluster)...)
}
