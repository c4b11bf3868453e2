package app

import (
	"context"
	"smriti/contract"

	"smriti"
)

// A session's title is stored state shown in every list of sessions: a
// secret in it is redacted as in any other text, whether a person typed
// it or the background model wrote it from the first exchange.

// redactTitle redacts a title for a session of space (nil: none, so no
// allowlist applies).
func (a *App) redactTitle(ctx context.Context, space *smriti.ID, title *string) {
	rs := redactions{}
	if space != nil {
		rs.allow = a.allowlist(ctx, func() (smriti.ID, error) { return *space, nil })
	}
	rs.text("title", title)
}

// titleRedacting is the session service the background model's title
// goes through.
type titleRedacting struct {
	contract.SessionService
	a *App
}

func (t titleRedacting) SetSessionTitle(ctx context.Context, id smriti.ID, title string) (*smriti.Session, error) {
	rs := redactions{allow: t.a.allowlist(ctx, func() (smriti.ID, error) { return t.a.sessionSpace(ctx, id) })}
	rs.text("title", &title)
	return t.SessionService.SetSessionTitle(ctx, id, title)
}
