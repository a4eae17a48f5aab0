// Package openaiapi serves the agent through OpenAI's APIs, under /v1/: the
// chat door (server.openaiCompat) and Open Responses (server.openResponses).
// Both check bearer tokens themselves, so that a refused caller gets a 401
// in OpenAI's error shape {"error":{"message","type","code","param"}}, and
// both take "model" as the agent's name (metadata.name).
//
// Chat: GET /v1/models and GET /v1/models/{id} list the one model, named
// after the agent, and POST /v1/chat/completions runs one turn, as JSON
// (chat.completion) or Server-Sent Events (chat.completion.chunk frames,
// then data: [DONE]). The newest user message of the body is the turn's
// input; the conversation goes on in the session the Harnest-Session-Id
// request header names (or a new one), whose transcript is the history:
// earlier messages of the body are never replayed. Every answer carries
// Harnest-Session-Id. An approval or client tool ends the completion with a
// message that says what is needed and how to answer it through the
// neutral endpoints.
//
// Open Responses (responses_*.go): POST /v1/responses runs a turn (the user
// content after the last assistant message is its input; system and
// developer messages, "instructions" and earlier messages reach the agent
// as the turn's context) in the session previous_response_id or
// conversation names, or a new one. Function tools are offered to the agent
// as client tools: its calls end the response with function_call items
// (several when it asks for several at once: responses_calls.go), whose
// call_ids name the client tool request; the function_call_output of every
// call (with previous_response_id, from any replica) continues the same
// harnest response; an approval works alike with mcp_approval_request and
// mcp_approval_response. Such a continuation is a new Open Responses
// response: the harnest events after the answer (responseRef). The events
// are folded (fold) into the specification's stream — numbered
// sequence_numbers, items named after the harnest sequence that started
// them — and the same fold of the logged events answers GET
// /v1/responses/{id}, its ?stream=true&starting_after=N and cancel, on any
// replica. What the response object repeats of its request (instructions,
// tools, tool_choice, sampling settings: responses_settings.go) and the
// request's input items are recorded in the store when the response starts
// (responses_record.go), so GET and GET /v1/responses/{id}/input_items
// answer as the create request did, also while the turn runs. "store":
// false runs the turn in a session of its own, deleted once the turn ends,
// and its ID is never found (responses_ephemeral.go).
package openaiapi
