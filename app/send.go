package app

import "context"

// Send sends a message in a session and stores the exchange, after the LLM
// gate admits it.
func (a *App) Send(ctx context.Context, req SendRequest) (*SendResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.chat.Send(ctx, req)
}

// Stream is Send with the reply streamed (see Chat.Stream).
func (a *App) Stream(ctx context.Context, req SendRequest, onMeta func(*Prepared) error, onDelta func(string) error) (*SendResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.chat.Stream(ctx, req, onMeta, onDelta)
}
