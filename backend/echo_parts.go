package backend

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// The echo agent echoes what is not text visibly too: each data part and
// each file of the input comes back as an artifact of its own (a data part
// as that data, a file by URL as that URL, a file held as an asset as a
// line that describes it: its bytes stay in the session, so an uploaded
// image does not come back in every receipt), and the answer names them:
// "Echo: hello [data] [file report.pdf]".

// echoPartsLabel is what the answer says of the input's parts that are not
// text: " [data]" or " [file <name>]" each, or "".
func echoPartsLabel(content []runtime.ContentInput) string {
	if onlyText(content) {
		return ""
	}
	var b strings.Builder
	for _, c := range content {
		switch {
		case c.Type == "text":
		case c.Type == "data":
			b.WriteString(" [data]")
		default:
			name := c.Name
			if name == "" {
				name = c.MediaType
			}
			if name == "" {
				name = c.URL
			}
			fmt.Fprintf(&b, " [%s %s]", c.Type, name)
		}
	}
	return b.String()
}

// echoArtifacts are the artifacts that echo the input's data and files,
// one per part, each complete in one chunk.
func echoArtifacts(ctx context.Context, content []runtime.ContentInput) ([]runtime.Event, error) {
	var out []runtime.Event
	for i, c := range content {
		var part runtime.ArtifactPart
		switch {
		case c.Type == "text":
			continue
		case c.Type == "data":
			part = runtime.ArtifactPart{Type: "data", Data: c.Value}
		case c.URL != "":
			part = runtime.ArtifactPart{Type: "file", URL: c.URL, MediaType: c.MediaType, Name: c.Name}
		default:
			part = runtime.ArtifactPart{Type: "text", Text: fmt.Sprintf("(%s %s: %s, %d bytes)", c.Type, c.AssetID, c.MediaType, c.SizeBytes)}
		}
		out = append(out, runtime.Event{Type: runtime.EventArtifact, Artifact: &runtime.ArtifactInfo{
			ID: "echo-" + strconv.Itoa(i), Name: "echo of part " + strconv.Itoa(i), Parts: []runtime.ArtifactPart{part}, LastChunk: true,
		}})
	}
	return out, nil
}

// onlyText reports whether every part of content is text (no label).
func onlyText(content []runtime.ContentInput) bool {
	for _, c := range content {
		if c.Type != "text" {
			return false
		}
	}
	return true
}
