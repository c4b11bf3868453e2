package app

import (
	"context"
	"strings"

	"smriti/intelligence"
)

// partialReply collects what a stream has delivered, so that a reply the
// user stops is kept as far as it got.
type partialReply struct {
	text strings.Builder
	// sendErr is the first failure to pass a piece on to the client: the
	// client went away.
	sendErr error
}

func (r *partialReply) relay(onDelta func(string) error) func(string) error {
	return func(piece string) error {
		r.text.WriteString(piece)
		if err := onDelta(piece); err != nil {
			if r.sendErr == nil {
				r.sendErr = err
			}
			return err
		}
		return nil
	}
}

// stopped says whether a stream ended because its client left (the user
// pressed Stop, closed the tab or lost the connection), not because the
// provider failed.
func (r *partialReply) stopped(ctx context.Context) bool {
	return r != nil && (ctx.Err() != nil || r.sendErr != nil)
}

// keepStopped stores the question and the reply as far as it got, the reply
// marked stopped, and answers cause (the client is gone; nobody reads the
// answer). The write runs without the request's cancellation, which has
// already happened, but keeps its caller. A stopped exchange is stored
// without the send's idempotency key: a retry of the same send is a new
// answer, not this partial one.
func (c *Chat) keepStopped(ctx context.Context, req SendRequest, p *Prepared, text string, cause error, rs redactions) (*SendResult, error) {
	comp := &intelligence.Completion{Text: text, Model: p.Model}
	write, meta := c.exchange(req, p, comp, &rs)
	meta.Stopped = true
	write.Assistant.Metadata = withRedactions(meta.Metadata(), rs.found, "reply")
	write.IdempotencyKey, write.RequestHash = "", ""
	if _, err := c.Sessions.AppendExchange(context.WithoutCancel(ctx), write); err != nil {
		return nil, err
	}
	return nil, cause
}
