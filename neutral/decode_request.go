package neutral

import (
	"bytes"
	"strings"

	"github.com/harnest/harnest/internal/jsonscan"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// The fast path of POST /responses: the body is read once, member by
// member, straight into a runtime.ResponseRequest, with no map and no
// encoding/json. It only ever accepts: whenever a body is not a plain,
// valid request — an error of any kind, an unknown or repeated member, an
// escape in a member name, nesting deeper than jsonscan.MaxDepth — it gives up,
// and the caller decodes the body the general way (httpapi.DecodeObject,
// then parseResponseRequest), which refuses it with the exact error or
// accepts it (a repeated member, say). The fuzz test FuzzFastResponseRequest
// checks that both ways give the same answer for every body.

// scanner is the JSON scanner the fast path's readers are methods of.
// typed says that the agent takes an object input (typed_input.go).
type scanner struct {
	jsonscan.Scanner
	typed bool
}

// fastResponseRequest decodes a UTF-8 body as a POST /responses envelope.
// ok is false when the body must take the general path.
func fastResponseRequest(body []byte) (runtime.ResponseRequest, bool) {
	return fastRequest(body, false)
}

// fastRequest is fastResponseRequest for an agent that is typed or not:
// only a typed one's fast path reads an object input.
func fastRequest(body []byte, typed bool) (runtime.ResponseRequest, bool) {
	var req runtime.ResponseRequest
	s := scanner{typed: typed}
	s.Reset(body)
	var seen requestSeen
	members := s.object(func(key []byte) bool { return s.requestMember(string(key), &req, &seen) })
	if !members || !s.AtEnd() || seen&memberBit("input") == 0 {
		return req, false
	}
	if bytes.ContainsAny(req.Metadata, " \t\n\r") {
		req.Metadata = jsonwrite.Compact(req.Metadata)
	}
	req.Transport = runtime.NeutralTransport(req.Stream)
	return req, true
}

// object reads a JSON object whose keys are plain (unescaped) strings:
// member reads the value of each key, false to end the fast path. False
// too for anything but such an object.
func (s *scanner) object(member func(key []byte) bool) bool {
	if !s.Next('{') {
		return false
	}
	if s.Next('}') {
		return true
	}
	for {
		s.Space()
		key, escaped, ok := s.Str()
		if !ok || escaped || !s.Next(':') {
			return false
		}
		s.Space()
		if !member(key) {
			return false
		}
		if s.Next('}') {
			return true
		}
		if !s.Next(',') {
			return false
		}
	}
}

// requestMembers are the envelope's members the fast path reads.
var requestMembers = [...]string{"input", "sessionId", "stream", "background", "metadata", "webhook", "onBusy"}

// requestSeen records the envelope's members read so far, bit i for
// requestMembers[i]: a repeated member takes the general path (where the
// last one counts).
type requestSeen uint8

// memberBit is key's bit in requestSeen; 0 when the fast path does not
// read key.
func memberBit(key string) requestSeen {
	for i, name := range requestMembers {
		if name == key {
			return 1 << i
		}
	}
	return 0
}

// first marks key as read and reports whether it is one of requestMembers,
// read for the first time (false: an unknown or a repeated member, which
// the general path handles).
func (seen *requestSeen) first(key string) bool {
	bit := memberBit(key)
	if bit == 0 || *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// requestMember reads the value of the envelope's member key into req.
func (s *scanner) requestMember(key string, req *runtime.ResponseRequest, seen *requestSeen) bool {
	if !seen.first(key) {
		return false
	}
	var ok bool
	switch key {
	case "input":
		return s.input(req)
	case "sessionId":
		req.SessionID, ok = s.StringValue()
		return ok && req.SessionID != ""
	case "stream":
		req.Stream, ok = s.Bool()
	case "background":
		req.Background, ok = s.Bool()
	case "metadata":
		if s.Peek() != '{' {
			return false
		}
		req.Metadata, ok = s.Value()
	case "webhook":
		req.Webhook, ok = s.webhook()
	case "onBusy":
		req.OnBusy, ok = s.StringValue()
		return ok && req.OnBusy != "" && runtime.ValidOnBusy(req.OnBusy) // a wrong one: the general path names it
	}
	return ok
}

// once marks a member as seen and reports whether it was new.
func once(seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	return true
}

// input reads "input": a non-blank string or an array of parts.
func (s *scanner) input(req *runtime.ResponseRequest) bool {
	switch s.Peek() {
	case '"':
		input, ok := s.StringValue()
		req.Input = input
		return ok && strings.TrimSpace(input) != ""
	case '[':
		input, parts, ok := s.parts()
		req.Input, req.Parts = input, parts
		return ok
	case '{':
		if !s.typed {
			return false // the general path refuses it
		}
		raw, ok := s.Value()
		if !ok {
			return false
		}
		req.Input, req.Parts, _ = typedInput(raw)
		return true
	}
	return false
}

// maxInputParts is how many parts an input array may hold (parseParts).
const maxInputParts = 64

// parts reads an input array: its parts, and their text joined with
// newlines, as parseParts does.
func (s *scanner) parts() (string, []runtime.InputPart, bool) {
	s.Skip(1) // the '['
	var parts []runtime.InputPart
	texts := 0
	for {
		s.Space()
		part, ok := s.part()
		if !ok || len(parts) == maxInputParts {
			return "", nil, false
		}
		if part.Type == "text" {
			texts++
		}
		parts = append(parts, part)
		if s.Next(']') {
			break
		}
		if !s.Next(',') {
			return "", nil, false
		}
	}
	input := joinTexts(parts, texts)
	if strings.TrimSpace(input) == "" && texts == len(parts) {
		return "", nil, false // nothing but blank text: the general path says so
	}
	return input, parts, true
}

// joinTexts joins the text parts' texts with newlines.
func joinTexts(parts []runtime.InputPart, texts int) string {
	if texts == 1 {
		for _, p := range parts {
			if p.Type == "text" {
				return p.Text
			}
		}
	}
	all := make([]string, 0, texts)
	for _, p := range parts {
		if p.Type == "text" {
			all = append(all, p.Text)
		}
	}
	return strings.Join(all, "\n")
}

// partMembers are the members of one input part, as the fast path read
// them; n counts them.
type partMembers struct {
	typ, text, assetID, url, mediaType, name string
	data                                     []byte
	hasType, hasText, hasAsset, hasURL       bool
	hasMediaType, hasName, hasData           bool
	n                                        int
}

// part reads one input part, valid by the rules of inputPart.
func (s *scanner) part() (runtime.InputPart, bool) {
	var m partMembers
	if !s.object(func(key []byte) bool { return s.partMember(key, &m) }) || !m.hasType {
		return runtime.InputPart{}, false
	}
	switch {
	case m.typ == "text":
		return runtime.InputPart{Type: "text", Text: m.text}, m.hasText && m.n == 2
	case m.typ == "data":
		return runtime.InputPart{Type: "data", Data: m.data}, m.hasData && m.n == 2
	case m.typ == "file" && m.hasURL:
		ok := m.url != "" && !m.hasText && !m.hasAsset && !m.hasData
		return runtime.InputPart{Type: "file", URL: m.url, MediaType: m.mediaType, Name: m.name}, ok
	case m.typ == "image", m.typ == "audio", m.typ == "video", m.typ == "file":
		return runtime.InputPart{Type: m.typ, AssetID: m.assetID}, m.hasAsset && m.assetID != "" && m.n == 2
	}
	return runtime.InputPart{}, false
}

// partMember reads the value of a part's member key into m. A member that
// is repeated, unknown or of the wrong kind ends the fast path.
func (s *scanner) partMember(key []byte, m *partMembers) bool {
	var has *bool
	var dst *string
	switch string(key) {
	case "type":
		has, dst = &m.hasType, &m.typ
	case "text":
		has, dst = &m.hasText, &m.text
	case "assetId":
		has, dst = &m.hasAsset, &m.assetID
	case "url":
		has, dst = &m.hasURL, &m.url
	case "mediaType":
		has, dst = &m.hasMediaType, &m.mediaType
	case "name":
		has, dst = &m.hasName, &m.name
	case "data":
		has = &m.hasData
	default:
		return false
	}
	if !once(has) {
		return false
	}
	m.n++
	var ok bool
	if dst != nil {
		*dst, ok = s.StringValue()
	} else {
		m.data, ok = s.Value()
	}
	return ok
}

// webhook reads "webhook": {"url": non-empty string, "events"?: bool}.
func (s *scanner) webhook() (*runtime.Webhook, bool) {
	var hook runtime.Webhook
	var hasURL, hasEvents bool
	members := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "url":
			if ok = once(&hasURL); ok {
				hook.URL, ok = s.StringValue()
			}
		case "events":
			if ok = once(&hasEvents); ok {
				hook.Events, ok = s.Bool()
			}
		}
		return ok
	})
	if !members {
		return nil, false
	}
	return &hook, hasURL && hook.URL != ""
}
