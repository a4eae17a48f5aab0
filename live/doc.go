// Package live serves WS /live: a WebSocket on which a client runs
// responses of one session, frame by frame, as the reference's live
// protocol describes. It only translates: every response is the runtime's,
// with its receipt (pollable with GET /responses/{id}?sessionId=), its
// event log and its waits, so a decision or a cancel for a live response
// may also arrive over HTTP, from any replica.
//
// Mount it when server.live is true, and Disabled otherwise:
//
//	h := live.New(live.Options{Service: svc, Auth: authn, MaxFrameBytes: maxRequestBytes})
//	mux.Handle("GET /live", h)
//	...
//	h.Shutdown(graceCtx) // http.Server.Shutdown does not see hijacked sockets
//
// Each socket runs on its own goroutines once the handshake is done (the
// handler returns), so an idle socket costs about 20 KiB: one reading
// goroutine, one writing goroutine, the read buffer.
//
// A socket authenticates at the handshake with an Authorization bearer
// header (programs), a bearer token offered as the subprotocol
// "bearer.<token>" next to "harnest.live" (browsers; the server selects
// "harnest.live"), or the same-origin cookie harnest_token. A handshake
// from a browser origin that is neither the server's own nor in
// AllowedOrigins is accepted and closed with 4403; one without a valid
// credential is closed with 4401.
//
// The protocol, in short (all frames are JSON text):
//
//	→ {"type":"connect"} or {"type":"connect","sessionId":"…"}
//	← {"type":"session.connected","sessionId":"…"}
//	→ {"type":"response.create","input":"…","requestId"?:"…","metadata"?:{…}}
//	← response.created, the SSE event frames, response.completed (with requestId)
//	→ {"type":"response.cancel","responseId":"…"}          while it runs
//	→ {"type":"approval.decision","responseId","approvalId","decision", "message"|"arguments"|"result"?}
//	← {"type":"approval.resolved",…} then the resumed frames (approval_answer.go)
//	→ {"type":"client_tool.result","requestId":"<clientTool.id>","output":…}
//	→ {"type":"session.close"}                              close 1000
//
// Sequences on the socket count the frames sent for a response (0, 1, 2
// …): they match the event log's until a response first suspends, after
// which live's own frames (approval.resolved) and the requires_action frame
// it leaves out for client tools make them differ.
//
// Close codes: 1000 session.close; 1001 server shutdown; 1008 a bad first
// frame, an unknown session, the idle frame limit (MaxIdleFrames) or a
// disabled endpoint; 1009 a frame over MaxFrameBytes; 1011 the store could
// not be reached at connect; 4401 no valid credential; 4403 a foreign
// origin.
package live
