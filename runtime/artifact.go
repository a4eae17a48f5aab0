package runtime

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// An artifact is an output of a turn beside its message: a file, a table,
// a document. A backend emits it as response.artifact events: the first
// event of an artifact ID makes it, later events with Append add parts to
// it (streamed chunks), and LastChunk says it is complete. Every transport
// carries it where it can (A2A artifact updates, the neutral envelope's
// output items, an AG-UI custom event, a /live event frame).

// MaxArtifactFileBytes bounds the bytes of one file part of an artifact,
// which travel inside the event (bigger files go by URL).
const MaxArtifactFileBytes = 1 << 20

// ArtifactInfo is the payload of response.artifact: one chunk of an
// artifact.
type ArtifactInfo struct {
	// ID names the artifact within the response; chunks of one artifact
	// share it.
	ID          string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []ArtifactPart `json:"parts"`
	// Append adds Parts to the artifact made by an earlier chunk, instead
	// of making (or replacing) it.
	Append bool `json:"append,omitempty"`
	// LastChunk says the artifact is complete.
	LastChunk bool `json:"lastChunk,omitempty"`
	// Metadata is the artifact's own metadata object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// ArtifactPart is one piece of an artifact:
//
//	{"type":"text","text":"..."}
//	{"type":"data","data":<any JSON>}
//	{"type":"file","bytes":"<base64>","mediaType"?:...,"name"?:...}
//	{"type":"file","url":"...","mediaType"?:...,"name"?:...}
type ArtifactPart struct {
	Type      string          `json:"type"` // "text", "data" or "file"
	Text      string          `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Bytes     []byte          `json:"bytes,omitempty"` // a file's content (base64 in JSON)
	URL       string          `json:"url,omitempty"`   // a file's address
	MediaType string          `json:"mediaType,omitempty"`
	Name      string          `json:"name,omitempty"` // a file's name
}

// appendArtifactJSON appends an artifact chunk as JSON, with the fields
// its parts carry.
func appendArtifactJSON(b []byte, a *ArtifactInfo) ([]byte, error) {
	o := jsonwrite.Begin(b)
	o.Str("artifactId", a.ID)
	o.StrOmit("name", a.Name)
	o.StrOmit("description", a.Description)
	o.Key("parts")
	var err error
	o.B, err = appendArtifactParts(o.B, a.Parts)
	if a.Append {
		o.Key("append")
		o.B = append(o.B, "true"...)
	}
	if a.LastChunk {
		o.Key("lastChunk")
		o.B = append(o.B, "true"...)
	}
	err = firstError(err, o.RawOmit("metadata", a.Metadata))
	return o.End(), err
}

// appendArtifactParts appends parts as a JSON array ([] when none).
func appendArtifactParts(b []byte, parts []ArtifactPart) ([]byte, error) {
	return appendArray(b, len(parts), func(b []byte, i int) ([]byte, error) {
		p := &parts[i]
		o := jsonwrite.Begin(b)
		o.Str("type", p.Type)
		o.StrOmit("text", p.Text)
		err := o.RawOmit("data", p.Data)
		o.BytesOmit("bytes", p.Bytes)
		o.StrOmit("url", p.URL)
		o.StrOmit("mediaType", p.MediaType)
		o.StrOmit("name", p.Name)
		return o.End(), err
	})
}

// addArtifact folds an artifact chunk into output[]: one item per
// artifact ID, its parts in order (adjacent text of appended chunks joined
// into one part).
func (b *outputBuilder) addArtifact(a *ArtifactInfo) {
	if a == nil {
		return
	}
	for i := range b.items {
		it := &b.items[i]
		if it.Type != OutputArtifact || it.ArtifactID != a.ID {
			continue
		}
		if !a.Append {
			*it = artifactItem(a)
			return
		}
		it.Parts = appendParts(it.Parts, a.Parts)
		if a.Name != "" {
			it.Name = a.Name
		}
		if a.Description != "" {
			it.Description = a.Description
		}
		if len(a.Metadata) > 0 {
			it.ArtifactMetadata = a.Metadata
		}
		return
	}
	b.items = append(b.items, artifactItem(a))
}

// OutputArtifact is the type of an artifact's output item.
const OutputArtifact = "artifact"

// hasArtifact reports whether the output holds an artifact.
func hasArtifact(items []OutputItem) bool {
	for _, it := range items {
		if it.Type == OutputArtifact {
			return true
		}
	}
	return false
}

// artifactItem is the output item of an artifact's first chunk.
func artifactItem(a *ArtifactInfo) OutputItem {
	return OutputItem{Type: OutputArtifact, ArtifactID: a.ID, Name: a.Name, Description: a.Description,
		Parts: appendParts(nil, a.Parts), ArtifactMetadata: a.Metadata}
}

// appendParts appends more to parts, joining a text part to a text part
// before it.
func appendParts(parts, more []ArtifactPart) []ArtifactPart {
	for _, p := range more {
		if n := len(parts); n > 0 && p.Type == "text" && parts[n-1].Type == "text" {
			parts[n-1].Text += p.Text
			continue
		}
		parts = append(parts, p)
	}
	if parts == nil {
		parts = []ArtifactPart{}
	}
	return parts
}
