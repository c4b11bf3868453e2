package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"smriti"
)

// sessionRun is a run of one session's exchanges in a sorted batch, all for
// one caller: its row is bumped once for all of them.
type sessionRun struct {
	ps      []*pendingExchange
	session smriti.ID
	owner   smriti.ID
	tokens  int
	// provider and model are what the run leaves on the session, nil to
	// keep the stored value (a one-off provider, use_mock): the run's last
	// other send sets them.
	provider, model any
	// What the bump returned, or why the session may not be written.
	last, total int64
	space       *smriti.ID
	err         error
}

// groupRuns splits a batch sorted by session into runs.
func groupRuns(live []*pendingExchange) []*sessionRun {
	var runs []*sessionRun
	for i := 0; i < len(live); {
		r := &sessionRun{session: live[i].ex.SessionID, owner: smriti.UserFromContext(live[i].ctx)}
		for _, p := range live[i:] {
			if p.ex.SessionID != r.session || smriti.UserFromContext(p.ctx) != r.owner {
				break
			}
			p.res, p.err = nil, nil
			r.ps = append(r.ps, p)
			r.tokens += p.ex.User.Tokens + p.ex.Assistant.Tokens
			if !p.ex.KeepSessionModel {
				r.provider, r.model = p.ex.Assistant.Provider, p.ex.Assistant.Model
			}
		}
		i += len(r.ps)
		runs = append(runs, r)
	}
	return runs
}

// distinctRuns reports whether every run is of another session (one
// session's exchanges for two callers make two runs).
func distinctRuns(runs []*sessionRun) bool {
	for i := 1; i < len(runs); i++ {
		if runs[i].session == runs[i-1].session {
			return false
		}
	}
	return true
}

// bumpRuns bumps every run's session row, in session-id order, one
// statement per run.
func (s *Store) bumpRuns(ctx context.Context, tx *sql.Tx, runs []*sessionRun, now time.Time) error {
	upd, err := s.txStmt(ctx, tx, sqlBumpSession)
	if err != nil {
		return err
	}
	for _, r := range runs {
		var space uuid.NullUUID
		err := upd.QueryRowContext(ctx, 2*len(r.ps), r.tokens, r.provider, r.model, s.d.t(now), r.session, r.owner, r.owner).Scan(&r.last, &r.total, &space)
		if errors.Is(err, sql.ErrNoRows) {
			r.err = s.whyNotWritable(smriti.WithUser(ctx, r.owner), tx, r.session)
			continue
		}
		if err != nil {
			return fmt.Errorf("update session: %w", err)
		}
		r.space = nullID(space)
	}
	return nil
}
