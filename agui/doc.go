// Package agui serves AG-UI (POST /agui): CopilotKit and @ag-ui/client
// frontends run the agent through the same response pipeline as
// POST /responses, so limits, the concurrency gate, cancellation (closing
// the stream cancels the run), timeouts and receipts are those of the
// neutral API. The package only translates:
//
//   - RunAgentInput is checked before anything is stored (input.go): a bad
//     body is a plain 400/413 with {"detail","code"}. threadId is the
//     session, created in the caller's namespace when new; only the newest
//     user message is the turn's input (the client's transcript is not
//     trusted as history); state is merged into the session for the run
//     (reserved keys refused); context and tools (frontend tools) go to the
//     turn; forwardedProps ride in the response metadata and never grant
//     authority. messages: [] is the initialization handshake.
//   - The neutral event stream becomes AG-UI events (events.go): unnamed
//     "data: <json>" SSE frames, LF only, integer timestamps, no null on
//     optional fields, keep-alive comments. Text is TEXT_MESSAGE_*,
//     thinking REASONING_*, tools TOOL_CALL_* and TOOL_CALL_RESULT, state
//     STATE_SNAPSHOT then STATE_DELTA "add" operations that always apply,
//     everything else CUSTOM; the run ends with RUN_FINISHED (result,
//     outcome) or RUN_ERROR.
//   - Human in the loop (resume.go): a frontend tool the client offered
//     ends the run after its tool call, and the next run's role:"tool"
//     message answers it; an approval (or a client tool the client did not
//     offer) ends the run with an interrupt outcome, answered by the next
//     run's resume. Either way the same response resumes and the new run
//     streams it to its next boundary.
//
// Both client generations are served: @ag-ui/client 1.0 sends
// protocolVersion; the 0.0.x clients (CopilotKit's) send none and reject
// some 1.0-only shapes, which are then not sent (the cancelled outcome).
//
// To find what a thread waits for, the handler keeps one small record per
// thread in the store (store.ThreadRecord, shared by every replica and kept
// as long as receipts): the response its last run started and the user
// message that started it; that response's receipt says requires_action
// and names the wait. The runtime has no "pending waits of a session"
// query yet; with one, the record goes away.
package agui
