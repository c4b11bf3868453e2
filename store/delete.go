package store

import (
	"context"
	"database/sql"
	"fmt"
	"smriti/internal/textutil"

	"smriti"
	"smriti/store/internal/dbx"
)

// DeleteCheckpoint implements contract.CheckpointService.
func (s *Store) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		c, err := s.checkpoint(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := s.lockSpace(ctx, tx, c.SpaceID, s.Now()); err != nil {
			return err
		}
		if !cascade {
			deps, err := s.dependents(ctx, tx, c)
			if err != nil {
				return err
			}
			if deps.BlockingCount > 0 {
				msg := fmt.Sprintf("Cannot delete checkpoint %s: it has %d child commit(s) and %d forked session(s). Re-send with ?cascade=true to delete the subtree.",
					textutil.ShortHash(c.Hash), len(deps.ChildCommits), len(deps.ForkedSessions))
				return &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: map[string]any{"message": msg, "dependents": deps}}
			}
		}
		// The subtree follows both parent edges: a merge whose source is
		// deleted goes with it.
		subtree := `WITH RECURSIVE sub (id) AS (
				SELECT CAST(? AS ` + s.d.IDType() + `)
				UNION
				SELECT c.id FROM checkpoints c JOIN sub ON c.parent_id = sub.id OR c.merge_parent_id = sub.id
			)`
		if _, err := tx.ExecContext(ctx, s.d.Rebind(subtree+` DELETE FROM sessions WHERE forked_from_checkpoint_id IN (SELECT id FROM sub)`), id); err != nil {
			return fmt.Errorf("delete forked sessions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(subtree+` DELETE FROM checkpoints WHERE id IN (SELECT id FROM sub)`), id); err != nil {
			return fmt.Errorf("delete checkpoints: %w", err)
		}
		return nil
	})
}

func (s *Store) dependents(ctx context.Context, q dbx.Querier, c *smriti.Checkpoint) (*Dependents, error) {
	deps := &Dependents{CheckpointID: c.ID, ChildCommits: []Dependent{}, ForkedSessions: []Dependent{}, SeededSessions: []Dependent{}}
	children, err := s.queryCheckpoints(ctx, q, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.parent_id = ? OR c.merge_parent_id = ? ORDER BY c.log_pos`, c.ID, c.ID)
	if err != nil {
		return nil, err
	}
	for _, ch := range children {
		deps.ChildCommits = append(deps.ChildCommits, Dependent{Kind: "child_commit", ID: ch.ID,
			Label: textutil.ShortHash(ch.Hash) + " — " + textutil.Truncate(ch.Message, 60)})
	}
	sessions, err := s.querySessions(ctx, q, `SELECT `+sessionCols+` FROM sessions WHERE forked_from_checkpoint_id = ? OR seeded_checkpoint_id = ? ORDER BY created_at`, c.ID, c.ID)
	if err != nil {
		return nil, err
	}
	for _, se := range sessions {
		title := se.Title
		if title == "" {
			title = "Untitled"
		}
		if se.ForkedFromCheckpointID != nil && *se.ForkedFromCheckpointID == c.ID {
			deps.ForkedSessions = append(deps.ForkedSessions, Dependent{Kind: "forked_session", ID: se.ID,
				Label: se.BranchName + " — " + textutil.Truncate(title, 60)})
		} else {
			deps.SeededSessions = append(deps.SeededSessions, Dependent{Kind: "seeded_session", ID: se.ID, Label: textutil.Truncate(title, 60)})
		}
	}
	deps.BlockingCount = len(deps.ChildCommits) + len(deps.ForkedSessions)
	return deps, nil
}

// Dependents are what stops a checkpoint from being deleted.
type Dependents struct {
	CheckpointID   smriti.ID   `json:"checkpoint_id"`
	ChildCommits   []Dependent `json:"child_commits"`
	ForkedSessions []Dependent `json:"forked_sessions"`
	SeededSessions []Dependent `json:"seeded_sessions"`
	BlockingCount  int         `json:"blocking_count"`
}

// Dependent is one thing that depends on a checkpoint.
type Dependent struct {
	Kind  string    `json:"kind"`
	ID    smriti.ID `json:"id"`
	Label string    `json:"label"`
}
