package app

import (
	"context"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/internal/pages"
)

// CreateClaim stores a claim and returns the live claims it collides with.
func (a *App) CreateClaim(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error) {
	rs := a.redactText(ctx, func() (smriti.ID, error) { return in.SpaceID, nil }, "scope", &in.Scope)
	c, collisions, err := a.store.CreateClaim(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	c.Redactions = rs
	return c, collisions, nil
}

// Claims lists one page of a space's claims, newest first, and the cursor
// of the next ("" after the last).
func (a *App) Claims(ctx context.Context, space smriti.ID, q coord.ClaimQuery) ([]*coord.Claim, string, error) {
	return a.store.Claims(ctx, space, q)
}

// AllClaims lists every claim of a space, newest first; live ones only
// unless includeExpired.
func (a *App) AllClaims(ctx context.Context, space smriti.ID, includeExpired bool) ([]*coord.Claim, error) {
	q := coord.ClaimQuery{IncludeExpired: includeExpired}
	return pages.All(func(after string) ([]*coord.Claim, string, error) {
		q.After = after
		return a.store.Claims(ctx, space, q)
	})
}

// FinishClaim ends a claim with a status (done, released, …).
func (a *App) FinishClaim(ctx context.Context, id smriti.ID, status string) (*coord.Claim, error) {
	return a.store.FinishClaim(ctx, id, status)
}

// HeartbeatClaim extends a live claim (by ttl, or its own when nil).
func (a *App) HeartbeatClaim(ctx context.Context, id smriti.ID, ttl *time.Duration) (*coord.Claim, error) {
	return a.store.HeartbeatClaim(ctx, id, ttl)
}

// ReadyTasks is a space's ready queue, best first.
func (a *App) ReadyTasks(ctx context.Context, space smriti.ID, q coord.ReadyQuery) ([]coord.ReadyTask, error) {
	return a.store.ReadyTasks(ctx, space, q)
}

// ClaimReady claims the first ready task atomically (ENOTFOUND when
// nothing is ready).
func (a *App) ClaimReady(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error) {
	return a.store.ClaimReady(ctx, in)
}

// SpaceMetrics are a space's coordination metrics.
func (a *App) SpaceMetrics(ctx context.Context, space smriti.ID) (*coord.SpaceMetrics, error) {
	return a.store.SpaceMetrics(ctx, space)
}

// SpaceMetricsView is SpaceMetrics as reported to a person or an agent.
func (a *App) SpaceMetricsView(ctx context.Context, space smriti.ID) (coord.MetricsView, error) {
	m, err := a.store.SpaceMetrics(ctx, space)
	if err != nil {
		return coord.MetricsView{}, err
	}
	return m.View(), nil
}
