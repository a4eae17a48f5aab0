// Package chat is a client of one OpenAI-compatible Chat Completions
// endpoint (OpenAI, vLLM, llama.cpp server, Ollama, LM Studio, OpenRouter
// and the like): POST {BaseURL}/chat/completions, streamed.
//
// Complete sends one request (the messages so far and the tools the model
// may call) and reads the Server-Sent Events stream as it arrives: text and
// reasoning deltas go to the caller's Handlers in order, tool call
// fragments are reassembled, and the Result carries the whole text, the
// tool calls, the finish reason and the exact usage the endpoint reported.
// A server that answers with one plain JSON completion is accepted too.
//
// Failures are *runtime.Error values of kind runtime.ErrAgentUnavailable
// with stable codes (model_auth, model_rate_limited, model_unavailable,
// model_timeout, model_bad_response) and a sentence that says what to do;
// the sentence never holds the API key, a header value, the request body
// or the provider's own error text, which goes to the log with the key and
// header values redacted. 429 and 5xx answers (and refused connections)
// are retried with exponential backoff within the call's timeout, honouring
// Retry-After, as long as nothing reached a handler yet.
package chat
