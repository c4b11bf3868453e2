package wire

import (
	"encoding/json"
	"smriti/coord"
	"smriti/intelligence"

	"smriti"
)

// View returns the metrics as the report shows them.
func (m *SpaceMetricsOut) View() coord.MetricsView {
	c, q, b := m.Coordination, m.StateQuality, m.Branches
	return coord.MetricsView{SpaceName: m.SpaceName, TotalCheckpoints: c.TotalCheckpoints, UniqueAgents: c.UniqueAgents,
		AgentCheckpoints: c.AgentCheckpoints, CrossAgentContinuations: c.CrossAgentContinuations, TotalClaims: c.TotalClaims,
		ClaimsWithTaskID: c.ClaimsWithTaskID, ClaimCompletionRate: c.ClaimCompletionRate, AvgDecisions: q.AvgDecisionsPerCheckpoint,
		AvgTasks: q.AvgTasksPerCheckpoint, StructuredTasks: q.CheckpointsWithStructuredTasks, TaskIDCheckpoints: q.CheckpointsWithTaskIDs,
		MilestoneNotes: q.MilestoneCount, NoiseNotes: q.NoiseCount, BranchesActive: b.Active, BranchesIntegrated: b.Integrated,
		BranchesAbandoned: b.Abandoned}
}

// Claim returns the wire claim as the domain's.
func (c *ClaimOut) Claim() *coord.Claim {
	return &coord.Claim{ID: c.ID, SpaceID: c.RepoID, SessionID: c.SessionID, Agent: c.Agent, BranchName: c.BranchName,
		BaseCheckpointID: c.BaseCommitID, WorktreeID: c.WorktreeID, Scope: c.Scope, TaskID: c.TaskID, Intent: c.IntentType,
		Status: c.Status, ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}
}

// Worktree returns the wire worktree as the domain's.
func (w *WorktreeOut) Worktree() *coord.Worktree {
	return &coord.Worktree{ID: w.ID, SpaceID: w.RepoID, Agent: w.Agent, Path: w.Path, BranchName: w.BranchName,
		BaseCommitSHA: w.BaseCommitSHA, Status: w.Status, CreatedAt: w.CreatedAt, ClosedAt: w.ClosedAt}
}

// WorktreesOf splits a worktree list into worktrees and their probes.
func WorktreesOf(items []WorktreeListItem) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe) {
	wts := make([]*coord.Worktree, len(items))
	probes := map[smriti.ID]*coord.WorktreeProbe{}
	for i := range items {
		wts[i] = items[i].Worktree()
		if items[i].Probe != nil {
			probes[items[i].ID] = items[i].Probe
		}
	}
	return wts, probes
}

// Checkpoint returns the wire checkpoint as the domain's, with the notes the
// server lists in its metadata.
func (c *Commit) Checkpoint() *smriti.Checkpoint {
	return &smriti.Checkpoint{ID: c.ID, SpaceID: c.RepoID, Hash: c.CommitHash, ParentID: c.ParentCommitID,
		MergeParentID: c.MergeParentID, BranchName: c.BranchName, AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType,
		ProjectRoot: c.ProjectRoot, Content: smriti.Content{Message: c.Message, Objective: c.Objective, Summary: c.Summary,
			Decisions: c.Decisions, Assumptions: c.Assumptions, Tasks: c.Tasks, OpenQuestions: c.OpenQuestions,
			Entities: c.Entities, Artifacts: c.Artifacts}, ContextBlob: c.ContextBlob, RawSourceText: c.RawSourceText,
		Metadata: c.Metadata, Notes: c.notes(), CreatedAt: c.CreatedAt, RebasedFrom: c.RebasedFrom, Redactions: c.Redactions}
}

// notes reads the notes listed under the metadata's "notes" key; none when
// the key is missing or not a list of notes.
func (c *Commit) notes() []*smriti.Note {
	raw, ok := c.Metadata["notes"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var wire []NoteOut
	if json.Unmarshal(b, &wire) != nil {
		return nil
	}
	out := make([]*smriti.Note, len(wire))
	for i := range wire {
		out[i] = wire[i].Note()
	}
	return out
}

// Note returns the wire note as the domain's.
func (n *NoteOut) Note() *smriti.Note {
	return &smriti.Note{ID: n.ID, CheckpointID: n.CheckpointID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt}
}

// Review returns the wire review as the domain's.
func (r *ReviewOut) Review() *intelligence.Review {
	return &intelligence.Review{Issues: r.Issues, Suggestions: r.Suggestions}
}

// Space is the domain view of the wire space, for rendering.
func (r *Repo) Space() *smriti.Space {
	return &smriti.Space{ID: r.ID, Slug: r.RepoSlug, Name: r.Name, Description: r.Description, ProjectRoot: r.ProjectRoot,
		OwnerID: r.UserID, Metadata: r.Metadata, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// SpacesOf returns wire spaces as the domain's.
func SpacesOf(rs []Repo) []*smriti.Space {
	out := make([]*smriti.Space, len(rs))
	for i := range rs {
		out[i] = rs[i].Space()
	}
	return out
}

// Session returns the wire session as the domain's.
func (s *SessionOut) Session() *smriti.Session {
	return &smriti.Session{ID: s.ID, SpaceID: s.RepoID, Title: s.Title, ActiveProvider: s.ActiveProvider, ActiveModel: s.ActiveModel,
		SeededCheckpointID: s.SeededCommitID, ForkedFromCheckpointID: s.ForkedFromCheckpointID, BranchName: s.BranchName,
		BranchDisposition: s.BranchDisposition, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// Checkpoint is the part of a compared checkpoint a rendering names: id,
// hash, branch and title.
func (c *CheckpointDetail) Checkpoint() *smriti.Checkpoint {
	return &smriti.Checkpoint{ID: c.ID, Hash: c.CommitHash, BranchName: c.BranchName,
		Content: smriti.Content{Message: c.Message, Summary: c.Summary, Objective: c.Objective}}
}

// CheckpointDiff is the domain form of the wire diff.
func (d *CompareDiff) CheckpointDiff() smriti.CheckpointDiff {
	return smriti.CheckpointDiff{SummaryA: d.SummaryA, SummaryB: d.SummaryB, ObjectiveA: d.ObjectiveA, ObjectiveB: d.ObjectiveB,
		Decisions:     smriti.ListDiff{OnlyA: d.DecisionsOnlyA, OnlyB: d.DecisionsOnlyB, Shared: d.DecisionsShared},
		Assumptions:   smriti.ListDiff{OnlyA: d.AssumptionsOnlyA, OnlyB: d.AssumptionsOnlyB, Shared: d.AssumptionsShared},
		Tasks:         smriti.ListDiff{OnlyA: d.TasksOnlyA, OnlyB: d.TasksOnlyB, Shared: d.TasksShared},
		OpenQuestions: smriti.ListDiff{OnlyA: d.OpenQuestionsOnlyA, OnlyB: d.OpenQuestionsOnlyB, Shared: d.OpenQuestionsShared},
		Entities:      smriti.ListDiff{OnlyA: d.EntitiesOnlyA, OnlyB: d.EntitiesOnlyB, Shared: d.EntitiesShared}}
}
