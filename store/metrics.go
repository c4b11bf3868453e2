package store

import (
	"context"
	"database/sql"
	"fmt"
	"smriti/coord"

	"github.com/google/uuid"

	"smriti"
	"smriti/store/internal/dbx"
)

var _ coord.MetricsService = (*Store)(nil)

// SpaceMetrics implements coord.MetricsService. Counts come from SQL
// aggregates; the per-checkpoint figures read only the author, parent,
// decisions and tasks columns, never the rest of the content.
func (s *Store) SpaceMetrics(ctx context.Context, spaceID smriti.ID) (*coord.SpaceMetrics, error) {
	var m *coord.SpaceMetrics
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		sp, err := s.space(ctx, tx, spaceID)
		if err != nil {
			return err
		}
		m = &coord.SpaceMetrics{SpaceID: sp.ID, SpaceName: sp.Name, ComputedAt: s.Now(), AgentCheckpoints: map[string]int{}}
		if err := s.checkpointMetrics(ctx, tx, spaceID, m); err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, s.d.Rebind(`SELECT COUNT(*),
			COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN status = 'abandoned' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN task_id IS NOT NULL AND task_id <> '' THEN 1 ELSE 0 END), 0)
			FROM claims WHERE space_id = ?`), spaceID).Scan(&m.TotalClaims, &m.ClaimsDone, &m.ClaimsAbandoned, &m.ClaimsWithTaskID)
		if err != nil {
			return fmt.Errorf("claim metrics: %w", err)
		}
		err = tx.QueryRowContext(ctx, s.d.Rebind(`SELECT
			COALESCE(SUM(CASE WHEN n.kind = 'milestone' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN n.kind = 'noise' THEN 1 ELSE 0 END), 0)
			FROM checkpoint_notes n JOIN checkpoints c ON c.id = n.checkpoint_id WHERE c.space_id = ?`), spaceID).
			Scan(&m.MilestoneNotes, &m.NoiseNotes)
		if err != nil {
			return fmt.Errorf("note metrics: %w", err)
		}
		rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT branch_disposition, COUNT(*) FROM sessions
			WHERE space_id = ? AND branch_name <> ? GROUP BY branch_disposition`), spaceID, smriti.MainBranch)
		if err != nil {
			return fmt.Errorf("branch metrics: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var disp string
			var n int
			if err := rows.Scan(&disp, &n); err != nil {
				return fmt.Errorf("branch metrics: %w", err)
			}
			switch disp {
			case smriti.DispositionActive:
				m.BranchesActive = n
			case smriti.DispositionIntegrated:
				m.BranchesIntegrated = n
			case smriti.DispositionAbandoned:
				m.BranchesAbandoned = n
			}
		}
		return rows.Err()
	})
	return m, err
}

func (s *Store) checkpointMetrics(ctx context.Context, q dbx.Querier, spaceID smriti.ID, m *coord.SpaceMetrics) error {
	rows, err := q.QueryContext(ctx, s.d.Rebind(`SELECT id, parent_id, author_agent, decisions, tasks FROM checkpoints WHERE space_id = ?`), spaceID)
	if err != nil {
		return fmt.Errorf("checkpoint metrics: %w", err)
	}
	defer rows.Close()
	type link struct {
		parent *smriti.ID
		agent  string
	}
	links := map[smriti.ID]link{}
	for rows.Next() {
		var id smriti.ID
		var parent uuid.NullUUID
		var agent sql.NullString
		var decisions []string
		var tasks []smriti.Task
		if err := rows.Scan(&id, &parent, &agent, dbx.JSONCol{Dst: &decisions}, dbx.JSONCol{Dst: &tasks}); err != nil {
			return fmt.Errorf("checkpoint metrics: %w", err)
		}
		m.TotalCheckpoints++
		m.TotalDecisions += len(decisions)
		m.TotalTasks += len(tasks)
		key := agent.String
		if key == "" {
			key = coord.NoAgent
		}
		m.AgentCheckpoints[key]++
		hint, withID := false, false
		for _, t := range tasks {
			hint = hint || t.IntentHint != ""
			withID = withID || t.ID != ""
		}
		if hint {
			m.StructuredTasks++
		}
		if withID {
			m.TaskIDCheckpoints++
		}
		links[id] = link{parent: dbx.NullID(parent), agent: agent.String}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checkpoint metrics: %w", err)
	}
	for _, l := range links {
		if l.parent == nil || l.agent == "" {
			continue
		}
		if p, ok := links[*l.parent]; ok && p.agent != "" && p.agent != l.agent {
			m.CrossAgentContinuations++
		}
	}
	m.UniqueAgents = len(m.AgentCheckpoints)
	if _, ok := m.AgentCheckpoints[coord.NoAgent]; ok {
		m.UniqueAgents--
	}
	return nil
}
