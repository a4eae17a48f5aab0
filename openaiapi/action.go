package openaiapi

import (
	"encoding/json"
	"fmt"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// actionText says what a response that ends with requires_action waits
// for and how to answer: through the neutral endpoints, whose reply carries
// the agent's next answer, after which the conversation goes on in the same
// session.
func actionText(a *runtime.RequiredAction, sessionID string) string {
	next := fmt.Sprintf("The reply to that call carries the agent's answer; then continue this conversation in session %s (send the header %s: %s).",
		sessionID, SessionHeader, sessionID)
	if a.Type == "client_tool" {
		return fmt.Sprintf("Client tool needed: the agent asks you to run the tool %q with the arguments %s. "+
			"Send its result with POST /client-tools/%s and the body {\"output\": <the result as JSON>} before %s. %s",
			a.Name, argumentsText(a.Arguments), a.ID, a.ExpiresAt, next)
	}
	text := fmt.Sprintf("Approval needed: the agent wants to perform %q.", a.Action)
	if a.Message != "" {
		text += " " + a.Message
	}
	if len(a.Arguments) > 0 {
		text += " Arguments: " + argumentsText(a.Arguments) + "."
	}
	return text + fmt.Sprintf(" Approval ID: %s. To approve, POST /approvals/%s with the body {\"decision\":\"approve\"} "+
		"(or {\"decision\":\"deny\"} to refuse) before %s. %s", a.ID, a.ID, a.ExpiresAt, next)
}

// argumentsText shows arguments as compact JSON ({} when there are none).
func argumentsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(jsonwrite.Compact(raw))
}
