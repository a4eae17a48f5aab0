package testutil

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/r3labs/sse/v2"
)

// SSEFrame is one parsed server-sent event: its event name, id, the data
// decoded as a JSON object, and the raw frame.
type SSEFrame struct {
	Event string
	ID    string
	Data  map[string]any
	Raw   string
	Err   error // the data is not a JSON object
}

// EachSSE splits body into frames with r3labs/sse's event stream reader and
// calls fn for every frame that carries data (comments and keep-alives are
// skipped) until fn returns false or the body ends.
func EachSSE(body io.Reader, fn func(SSEFrame) bool) {
	reader := sse.NewEventStreamReader(body, 1<<20)
	for {
		raw, err := reader.ReadEvent()
		if len(raw) > 0 {
			if f, ok := ParseSSE(raw); ok && !fn(f) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// ReadSSE reads every frame of body until it ends.
func ReadSSE(body io.Reader) []SSEFrame {
	var frames []SSEFrame
	EachSSE(body, func(f SSEFrame) bool { frames = append(frames, f); return true })
	return frames
}

// ParseSSE parses one raw frame; false when it carries no data.
func ParseSSE(raw []byte) (SSEFrame, bool) {
	f := SSEFrame{Raw: string(raw)}
	var data strings.Builder
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, ":"): // comment (keep-alive)
		case strings.HasPrefix(line, "event:"):
			f.Event = strings.TrimPrefix(strings.TrimPrefix(line, "event:"), " ")
		case strings.HasPrefix(line, "id:"):
			f.ID = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " ")
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if data.Len() == 0 {
		return f, false
	}
	f.Err = json.Unmarshal([]byte(data.String()), &f.Data)
	return f, true
}
