package runtime

import "encoding/json"

// TurnMessage is what a protocol message carries beside its parts, in a
// form no transport owns: A2A's message IDs, the task and context it
// continues, the tasks it refers to, the extensions it uses and its own
// metadata. A transport that has none of these leaves Turn.Message nil.
type TurnMessage struct {
	// MessageID is the client's ID of the message.
	MessageID string `json:"messageId,omitempty"`
	// ContextID is the conversation the message belongs to (A2A's
	// contextId: the session).
	ContextID string `json:"contextId,omitempty"`
	// TaskID is the task the message continues, when it names one.
	TaskID string `json:"taskId,omitempty"`
	// ReferenceTaskIDs are earlier tasks the message refers to.
	ReferenceTaskIDs []string `json:"referenceTaskIds,omitempty"`
	// Extensions are the URIs of the protocol extensions the message uses.
	Extensions []string `json:"extensions,omitempty"`
	// Metadata is the message's own metadata object, as the client sent it.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}
