package main

import "strings"

// Tools at home: when the server has spec.relay.toolsAtHome on, the pairing
// exchange also returns a callback token and every inbox item carries a run
// note. "harnest connect --exec" hands both to the child, which may then
// call the tools its owner granted with
//
//	POST $HARNEST_TOOLS_URL
//	Authorization: Bearer $HARNEST_CALLBACK_TOKEN
//	{"run_note": "$HARNEST_RUN_NOTE", "tool": "...", "arguments": {...}, "call_id": "..."}

// The environment variables a --exec child gets for tools at home.
const (
	envToolsURL      = "HARNEST_TOOLS_URL"
	envCallbackToken = "HARNEST_CALLBACK_TOKEN"
	envRunNote       = "HARNEST_RUN_NOTE"
)

// toolsCallPath is the relay route that runs one granted tool.
const toolsCallPath = "/api/outside-agents/v1/tools/call"

// exchangeTools is the part of the pairing exchange's answer that tools at
// home add: decode it beside the session token.
type exchangeTools struct {
	// CallbackToken ("hrn_cb_…") is shown once; "" when the server has
	// tools at home off.
	CallbackToken string `json:"callback_token"`
}

// itemCallback is an inbox item's "callback" member: decode it as the
// item's Callback field (`json:"callback"`).
type itemCallback struct {
	// RunNote is the signed note that lets this item's run call tools, for
	// ten minutes.
	RunNote string `json:"run_note"`
}

// toolsChildEnv is what to append to a --exec child's environment for one
// inbox item: the tools URL, the callback token and the item's run note.
// It returns nil (nothing to add) unless the server gave both a callback
// token and a run note. server is the relay's base URL as given to
// --server.
func toolsChildEnv(server, callbackToken, runNote string) []string {
	if callbackToken == "" || runNote == "" {
		return nil
	}
	return []string{
		envToolsURL + "=" + strings.TrimRight(server, "/") + toolsCallPath,
		envCallbackToken + "=" + callbackToken,
		envRunNote + "=" + runNote,
	}
}

// withoutToolsEnv drops tools-at-home variables this process inherited, so
// a child never sees a token that is not its own item's.
func withoutToolsEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, envToolsURL+"=") || strings.HasPrefix(kv, envCallbackToken+"=") ||
			strings.HasPrefix(kv, envRunNote+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
