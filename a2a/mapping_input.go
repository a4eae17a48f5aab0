package a2a

import (
	"context"
	"errors"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// The whole A2A message reaches the agent: its text parts as the turn's
// input text, every part as a content part (data as {"type":"data"}, a file
// with bytes as a session asset, a file by URL as {"type":"file","url"},
// never fetched), and the message's IDs, references, extensions and
// metadata as the turn's message.

// turnMessageOf is what the message carries beside its parts.
func turnMessageOf(m Message) *runtime.TurnMessage {
	return &runtime.TurnMessage{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		ReferenceTaskIDs: m.ReferenceTaskIDs, Extensions: m.Extensions, Metadata: m.Metadata}
}

// hasFileBytes reports whether the message carries a file with bytes,
// which needs a session to hold it as an asset.
func hasFileBytes(m Message) bool {
	for _, p := range m.Parts {
		if p.Raw != nil {
			return true
		}
	}
	return false
}

// inputOf turns a message into the runtime's input: the text parts joined
// with newlines, and the parts as content parts. A file with bytes is
// stored as an asset of sessionID first (which must exist then); a file
// too large, or past the session's quota, is invalid params and nothing
// runs.
func (s *Server) inputOf(ctx context.Context, p runtime.Principal, sessionID string, m Message) (string, []runtime.InputPart, error) {
	var parts []runtime.InputPart // made at the first part that is not text
	for i, part := range m.Parts {
		if part.Text != nil {
			if parts != nil {
				parts = append(parts, runtime.InputPart{Type: "text", Text: *part.Text})
			}
			continue
		}
		if parts == nil { // the text parts before this one
			parts = make([]runtime.InputPart, 0, len(m.Parts))
			for _, before := range m.Parts[:i] {
				parts = append(parts, runtime.InputPart{Type: "text", Text: *before.Text})
			}
		}
		switch {
		case part.Data != nil:
			parts = append(parts, runtime.InputPart{Type: "data", Data: part.Data})
		case part.URL != "":
			parts = append(parts, runtime.InputPart{Type: "file", URL: part.URL, MediaType: part.MediaType, Name: part.Filename})
		case part.Raw != nil:
			in, err := s.svc.AttachFile(ctx, p, sessionID, part.MediaType, part.Filename, part.Raw)
			if err != nil {
				return "", nil, attachError(err)
			}
			parts = append(parts, in)
		}
	}
	input := inputText(m.Parts)
	if parts == nil && input == "" { // a text message is plain text input
		return "", nil, errInvalidParams("message needs non-blank text")
	}
	return input, parts, nil
}

// inputText joins the non-blank text parts with newlines; one text is
// itself, not a copy.
func inputText(parts []Part) string {
	var first string
	var joined strings.Builder
	n := 0
	for _, p := range parts {
		if p.Text == nil || strings.TrimSpace(*p.Text) == "" {
			continue
		}
		switch n {
		case 0:
			first = *p.Text
		case 1:
			joined.WriteString(first)
			fallthrough
		default:
			joined.WriteByte('\n')
			joined.WriteString(*p.Text)
		}
		n++
	}
	if n > 1 {
		return joined.String()
	}
	return first
}

// attachError is the A2A error of a file the runtime would not keep.
func attachError(err error) error {
	e := runtime.AsError(err)
	switch {
	case errors.Is(err, runtime.ErrTooLarge):
		return errInvalidParams("A file part is too large: " + e.Detail)
	case errors.Is(err, runtime.ErrUnsupportedMedia):
		return errContentType("A file part cannot be kept: " + e.Detail)
	}
	return asA2A(err)
}

// ensureSession makes sure the user has the session a message with file
// bytes will run in, and returns its ID: the message's contextId, or a new
// session's.
func (s *Server) ensureSession(ctx context.Context, p runtime.Principal, contextID string) (string, error) {
	if contextID == "" {
		contextID = runtime.NewSessionID()
	}
	if _, err := s.svc.CreateSession(ctx, p, contextID, nil); err != nil && !errors.Is(err, runtime.ErrConflict) {
		return "", asA2A(err)
	}
	return contextID, nil
}
