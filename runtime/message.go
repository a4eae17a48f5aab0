package runtime

import "encoding/json"

// Message is one entry of a session transcript.
type Message struct {
	ID        string          `json:"id"`
	Type      string          `json:"type,omitempty"` // "" for a message; "compaction" for a compaction item (compact.go)
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"` // a JSON string, or structured portable content
	CreatedAt string          `json:"createdAt"`
	Metadata  json.RawMessage `json:"metadata"`
}
