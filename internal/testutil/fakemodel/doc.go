// Package fakemodel is a scriptable OpenAI-compatible Chat Completions
// endpoint for tests. It listens on 127.0.0.1, answers
// POST {URL}/chat/completions with the replies a test scripts (streamed
// text, reasoning, tool calls, usage, error statuses, slow or malformed
// streams) and records every request it received.
//
// It speaks the wire format only, with its own JSON types, so the client it
// tests (backend/chat) and the programs built on it (the real harnest
// binary in end-to-end tests) are checked against the protocol, not against
// themselves.
//
// Use:
//
//	fake := fakemodel.Start(t)
//	fake.Script(fakemodel.Reply{Text: "Hello there"})
//	// point the client at fake.URL (it ends in /v1)
//	reqs := fake.Requests()
package fakemodel
