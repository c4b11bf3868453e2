package app

import (
	"context"
	"smriti/contract"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// MaxSessionTitleChars bounds a session's title, in characters.
const MaxSessionTitleChars = 255

// CreateSession starts a session: the title trimmed and at most
// MaxSessionTitleChars characters (EUNPROCESSABLE), the provider and model
// chosen once (ChooseModel), seeded as in.SeedFrom says.
func (a *App) CreateSession(ctx context.Context, in smriti.SessionCreate) (*smriti.Session, error) {
	if textutil.RuneLen(in.Title) > MaxSessionTitleChars {
		return nil, smriti.TooLong("title", MaxSessionTitleChars)
	}
	in.Title = strings.TrimSpace(in.Title)
	a.redactTitle(ctx, in.SpaceID, &in.Title)
	in.Provider, in.Model = ChooseModel(a.providers, in.Provider, in.Model)
	return a.store.CreateSession(ctx, in)
}

// ForkSession forks a checkpoint into a new session on a new branch, with
// the provider and model chosen as for CreateSession.
func (a *App) ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	in.Provider, in.Model = ChooseModel(a.providers, in.Provider, in.Model)
	return a.store.ForkSession(ctx, in)
}

// Session opens a session (ENOTFOUND when missing or not the caller's).
func (a *App) Session(ctx context.Context, id smriti.ID) (*smriti.Session, error) {
	return a.store.Session(ctx, id)
}

// Sessions lists one page of sessions, of one space when spaceID is set,
// and the cursor of the next ("" after the last).
func (a *App) Sessions(ctx context.Context, spaceID *smriti.ID, page smriti.Page) ([]*smriti.Session, string, error) {
	return a.store.Sessions(ctx, spaceID, page)
}

// DeleteSession deletes a session and its turns.
func (a *App) DeleteSession(ctx context.Context, id smriti.ID) error {
	return a.store.DeleteSession(ctx, id)
}

// AttachSession moves a session with no space into a space.
func (a *App) AttachSession(ctx context.Context, id, spaceID smriti.ID) (*smriti.Session, error) {
	return a.store.AttachSession(ctx, id, spaceID)
}

// SetMount mounts a checkpoint into a session (nil unmounts).
func (a *App) SetMount(ctx context.Context, sessionID smriti.ID, m *smriti.Mount) (*smriti.Session, error) {
	return a.store.SetMount(ctx, sessionID, m)
}

// Turn opens one turn.
func (a *App) Turn(ctx context.Context, id smriti.ID) (*smriti.Turn, error) {
	return a.store.Turn(ctx, id)
}

// Turns lists a session's turns.
func (a *App) Turns(ctx context.Context, sessionID smriti.ID, q contract.TurnQuery) ([]*smriti.Turn, error) {
	return a.store.Turns(ctx, sessionID, q)
}

// SetBranchDisposition marks every session of a branch in a space (active,
// merged, abandoned, …) and returns how many it changed; ENOTFOUND for a
// space the caller cannot see.
func (a *App) SetBranchDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (int, error) {
	if _, err := a.store.Space(ctx, space); err != nil {
		return 0, err
	}
	return a.store.SetBranchDisposition(ctx, space, branch, disposition)
}
