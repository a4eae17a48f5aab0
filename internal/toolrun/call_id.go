package toolrun

import "context"

// A call's ID, passed to the tool as an idempotency key: a turn that runs
// again after its replica was lost retries the call that was in flight
// with the same ID, so a tool that remembers the IDs it served can answer
// again without acting twice. An exec tool finds it in the environment
// variable HARNEST_CALL_ID; an MCP tool in the call's _meta, under
// MetaCallID.

// EnvCallID is the environment variable that holds an exec tool's call ID.
const EnvCallID = "HARNEST_CALL_ID"

// MetaCallID is the _meta key of an MCP tool call's ID.
const MetaCallID = "harnest.dev/callId"

type callIDKey struct{}

// WithCallID returns ctx carrying the ID of the call Call makes with it.
func WithCallID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, callIDKey{}, id)
}

// callID is the call ID ctx carries ("" for none).
func callID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
