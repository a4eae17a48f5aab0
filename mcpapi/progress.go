package mcpapi

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress sends a call's text deltas as notifications/progress, for a
// client that sent a progress token with the call. A nil *progress sends
// nothing.
type progress struct {
	session *mcp.ServerSession
	token   any
	sent    float64  // deltas sent so far: the progress value, which only grows
	meta    mcp.Meta // the _meta of every notification: the response and its session
}

// of names the response whose deltas go out (MetaResponseID, MetaSessionID
// in every notification's _meta).
func (p *progress) of(sessionID, responseID string) {
	if p != nil {
		p.meta = mcp.Meta{MetaResponseID: responseID, MetaSessionID: sessionID}
	}
}

// newProgress is the progress of a call, nil when it has no progress token.
func newProgress(req *mcp.CallToolRequest) *progress {
	if req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return &progress{session: req.Session, token: token}
}

// text sends one text delta. A notification that cannot be sent is
// dropped: the answer in the result holds the whole text anyway.
func (p *progress) text(ctx context.Context, delta string) {
	if p == nil || delta == "" {
		return
	}
	p.sent++
	_ = p.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		Meta: p.meta, ProgressToken: p.token, Progress: p.sent, Message: delta,
	})
}
