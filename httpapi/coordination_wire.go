package httpapi

import (
	"time"

	"smriti"
	"smriti/internal/nonnil"
)

// The coordination answers keep the first implementation's shapes (its
// clients read them unchanged) and add counts for what a cap cut.

// SpaceState is the state brief on the wire.
type SpaceState struct {
	Space          StateSpace     `json:"space"`
	Head           Head           `json:"head"`
	Commit         *Commit        `json:"commit"`
	ActiveBranches []ActiveBranch `json:"active_branches"`
	// ActiveBranchesMore counts active branches beyond the listed ones.
	ActiveBranchesMore int           `json:"active_branches_more"`
	ActiveClaims       []StateClaim  `json:"active_claims"`
	ActiveClaimsMore   int           `json:"active_claims_more"`
	Divergence         *Divergence   `json:"divergence"`
	Freshness          *FreshnessOut `json:"freshness"`
	// Mount is the asking session's mounted checkpoint (session_id given).
	Mount *MountOut `json:"mount"`
}

// StateSpace is the space part of the state brief.
type StateSpace struct {
	ID          smriti.ID `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	ProjectRoot *string   `json:"project_root"`
}

// ActiveBranch is an active branch's head.
type ActiveBranch struct {
	BranchName  string    `json:"branch_name"`
	CommitID    smriti.ID `json:"commit_id"`
	CommitHash  string    `json:"commit_hash"`
	Message     string    `json:"message"`
	AuthorAgent *string   `json:"author_agent"`
	CreatedAt   time.Time `json:"created_at"`
	Summary     string    `json:"summary"`
}

// StateClaim is a live claim in the state brief.
type StateClaim struct {
	ID         smriti.ID  `json:"id"`
	Agent      string     `json:"agent"`
	BranchName string     `json:"branch_name"`
	Scope      string     `json:"scope"`
	TaskID     *string    `json:"task_id"`
	WorktreeID *smriti.ID `json:"worktree_id"`
	// Worktree is the bound worktree with its drift; null when unbound,
	// closed, or when probing it failed.
	Worktree       *StateWorktree `json:"worktree"`
	IntentType     string         `json:"intent_type"`
	ClaimedAt      time.Time      `json:"claimed_at"`
	ExpiresAt      time.Time      `json:"expires_at"`
	BaseCommitHash *string        `json:"base_commit_hash"`
}

// StateWorktree is a claim's worktree and its drift.
type StateWorktree struct {
	ID     smriti.ID `json:"id"`
	Path   string    `json:"path"`
	Branch string    `json:"branch"`
	smriti.WorktreeProbe
}

// Divergence lists where main's and active branches' decisions differ.
type Divergence struct {
	Pairs []DivergencePair `json:"pairs"`
	// More counts divergent branches beyond the listed pairs.
	More int `json:"more"`
}

// DivergencePair is one branch's divergence from main.
type DivergencePair struct {
	BranchName          string   `json:"branch_name"`
	BranchCommitHash    string   `json:"branch_commit_hash"`
	MainOnlyDecisions   []string `json:"main_only_decisions"`
	BranchOnlyDecisions []string `json:"branch_only_decisions"`
}

// FreshnessOut says whether main moved since a checkpoint.
type FreshnessOut struct {
	Changed             bool             `json:"changed"`
	SinceCommitHash     string           `json:"since_commit_hash"`
	CurrentHeadHash     string           `json:"current_head_hash"`
	NewCheckpointsCount int              `json:"new_checkpoints_count"`
	NewCheckpoints      []FreshCommitOut `json:"new_checkpoints"`
}

// FreshCommitOut is a checkpoint in a freshness list.
type FreshCommitOut struct {
	ID          smriti.ID `json:"id"`
	CommitHash  string    `json:"commit_hash"`
	AuthorAgent *string   `json:"author_agent"`
	Message     string    `json:"message"`
	CreatedAt   time.Time `json:"created_at"`
}

// MountOut is a session's mounted checkpoint.
type MountOut struct {
	SessionID  smriti.ID `json:"session_id"`
	CommitID   smriti.ID `json:"commit_id"`
	CommitHash string    `json:"commit_hash"`
	Message    string    `json:"message"`
}

func spaceStateOf(b *smriti.StateBrief, head Head, now time.Time) SpaceState {
	out := SpaceState{
		Space: StateSpace{ID: b.Space.ID, Name: b.Space.Name, ProjectRoot: b.Space.ProjectRoot},
		Head:  head, ActiveBranches: []ActiveBranch{}, ActiveBranchesMore: b.MoreBranches,
		ActiveClaims: []StateClaim{}, ActiveClaimsMore: b.MoreClaims,
	}
	if b.Space.Description != "" {
		d := b.Space.Description
		out.Space.Description = &d
	}
	if b.Head != nil {
		c := commitOf(b.Head)
		out.Commit = &c
	}
	for _, h := range b.Branches {
		out.ActiveBranches = append(out.ActiveBranches, ActiveBranch{BranchName: h.Branch, CommitID: h.CheckpointID,
			CommitHash: h.Hash, Message: h.Message, AuthorAgent: h.AuthorAgent, CreatedAt: h.CreatedAt, Summary: h.Summary})
	}
	for _, c := range b.Claims {
		sc := StateClaim{ID: c.ID, Agent: c.Agent, BranchName: c.BranchName, Scope: c.Scope, TaskID: c.TaskID,
			WorktreeID: c.WorktreeID, IntentType: c.Intent, ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}
		if c.BaseHash != "" {
			h := smriti.ShortHash(c.BaseHash)
			sc.BaseCommitHash = &h
		}
		if c.Worktree != nil && c.Probe != nil {
			sc.Worktree = &StateWorktree{ID: c.Worktree.ID, Path: c.Worktree.Path, Branch: c.Worktree.BranchName,
				WorktreeProbe: *probeOut(c.Probe, now)}
		}
		out.ActiveClaims = append(out.ActiveClaims, sc)
	}
	if len(b.Divergence) > 0 {
		d := &Divergence{Pairs: []DivergencePair{}, More: b.MoreDivergent}
		for _, p := range b.Divergence {
			d.Pairs = append(d.Pairs, DivergencePair{BranchName: p.Branch, BranchCommitHash: p.BranchHash,
				MainOnlyDecisions: nonnil.Slice(p.MainOnly), BranchOnlyDecisions: nonnil.Slice(p.BranchOnly)})
		}
		out.Divergence = d
	}
	if f := b.Freshness; f != nil {
		fo := &FreshnessOut{Changed: f.Changed, SinceCommitHash: smriti.ShortHash(f.SinceHash),
			CurrentHeadHash: smriti.ShortHash(f.CurrentHeadHash), NewCheckpointsCount: f.NewCount, NewCheckpoints: []FreshCommitOut{}}
		for _, c := range f.New {
			fo.NewCheckpoints = append(fo.NewCheckpoints, FreshCommitOut{ID: c.ID, CommitHash: smriti.ShortHash(c.Hash),
				AuthorAgent: c.AuthorAgent, Message: c.Message, CreatedAt: c.CreatedAt})
		}
		out.Freshness = fo
	}
	if m := b.Mount; m != nil {
		out.Mount = &MountOut{SessionID: m.SessionID, CommitID: m.CheckpointID, CommitHash: m.Hash, Message: m.Message}
	}
	return out
}

// Brief turns the wire state back into the domain's brief, so a client can
// render it with smriti.RenderBrief exactly as the server would (hashes the
// wire shortens stay short; a worktree whose probe failed shows as such).
func (st *SpaceState) Brief() *smriti.StateBrief {
	b := &smriti.StateBrief{
		Space:        &smriti.Space{ID: st.Space.ID, Name: st.Space.Name, ProjectRoot: st.Space.ProjectRoot},
		MoreBranches: st.ActiveBranchesMore, MoreClaims: st.ActiveClaimsMore,
		Branches: []smriti.BranchHead{}, Claims: []smriti.ActiveClaim{},
	}
	if st.Space.Description != nil {
		b.Space.Description = *st.Space.Description
	}
	if c := st.Commit; c != nil {
		b.Head = checkpointOf(c)
	}
	for _, h := range st.ActiveBranches {
		b.Branches = append(b.Branches, smriti.BranchHead{Branch: h.BranchName, CheckpointID: h.CommitID, Hash: h.CommitHash,
			Message: h.Message, AuthorAgent: h.AuthorAgent, Summary: h.Summary, CreatedAt: h.CreatedAt})
	}
	for _, c := range st.ActiveClaims {
		ac := smriti.ActiveClaim{Claim: smriti.Claim{ID: c.ID, SpaceID: st.Space.ID, Agent: c.Agent, BranchName: c.BranchName,
			WorktreeID: c.WorktreeID, Scope: c.Scope, TaskID: c.TaskID, Intent: c.IntentType, Status: smriti.ClaimActive,
			ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}}
		if c.BaseCommitHash != nil {
			ac.BaseHash = *c.BaseCommitHash
		}
		if w := c.Worktree; w != nil {
			p := w.WorktreeProbe
			ac.Worktree = &smriti.Worktree{ID: w.ID, SpaceID: st.Space.ID, Path: w.Path, BranchName: w.Branch, Status: smriti.WorktreeActive}
			ac.Probe = &p
		}
		b.Claims = append(b.Claims, ac)
	}
	if d := st.Divergence; d != nil {
		b.MoreDivergent = d.More
		for _, p := range d.Pairs {
			b.Divergence = append(b.Divergence, smriti.DivergencePair{Branch: p.BranchName, BranchHash: p.BranchCommitHash,
				MainOnly: p.MainOnlyDecisions, BranchOnly: p.BranchOnlyDecisions})
		}
	}
	if f := st.Freshness; f != nil {
		b.Freshness = &smriti.Freshness{Changed: f.Changed, SinceHash: f.SinceCommitHash, CurrentHeadHash: f.CurrentHeadHash,
			NewCount: f.NewCheckpointsCount}
		for _, c := range f.NewCheckpoints {
			b.Freshness.New = append(b.Freshness.New, smriti.FreshCheckpoint{ID: c.ID, Hash: c.CommitHash,
				AuthorAgent: c.AuthorAgent, Message: c.Message, CreatedAt: c.CreatedAt})
		}
	}
	if m := st.Mount; m != nil {
		b.Mount = &smriti.MountedCheckpoint{SessionID: m.SessionID, CheckpointID: m.CommitID, Hash: m.CommitHash, Message: m.Message}
	}
	return b
}

// checkpointOf turns a wire checkpoint back into the domain's.
func checkpointOf(c *Commit) *smriti.Checkpoint {
	return &smriti.Checkpoint{ID: c.ID, SpaceID: c.RepoID, Hash: c.CommitHash, ParentID: c.ParentCommitID,
		MergeParentID: c.MergeParentID, BranchName: c.BranchName, AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType,
		ProjectRoot: c.ProjectRoot, Content: smriti.Content{Message: c.Message, Objective: c.Objective, Summary: c.Summary,
			Decisions: c.Decisions, Assumptions: c.Assumptions, Tasks: c.Tasks, OpenQuestions: c.OpenQuestions,
			Entities: c.Entities, Artifacts: c.Artifacts},
		ContextBlob: c.ContextBlob, RawSourceText: c.RawSourceText, Metadata: c.Metadata, CreatedAt: c.CreatedAt}
}

// ClaimOut is a claim on the wire.
type ClaimOut struct {
	ID           smriti.ID  `json:"id"`
	RepoID       smriti.ID  `json:"repo_id"`
	SessionID    *smriti.ID `json:"session_id"`
	Agent        string     `json:"agent"`
	BranchName   string     `json:"branch_name"`
	BaseCommitID *smriti.ID `json:"base_commit_id"`
	TaskID       *string    `json:"task_id"`
	WorktreeID   *smriti.ID `json:"worktree_id"`
	Scope        string     `json:"scope"`
	IntentType   string     `json:"intent_type"`
	Status       string     `json:"status"`
	ClaimedAt    time.Time  `json:"claimed_at"`
	ExpiresAt    time.Time  `json:"expires_at"`
}

func claimOf(c *smriti.Claim) ClaimOut {
	return ClaimOut{ID: c.ID, RepoID: c.SpaceID, SessionID: c.SessionID, Agent: c.Agent, BranchName: c.BranchName,
		BaseCommitID: c.BaseCheckpointID, TaskID: c.TaskID, WorktreeID: c.WorktreeID, Scope: c.Scope,
		IntentType: c.Intent, Status: c.Status, ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}
}

func claimsOf(cs []*smriti.Claim) []ClaimOut {
	return nonnil.Convert(cs, claimOf)
}

// ClaimCreated is a new claim and the live claims it collides with (same
// task id or same scope); claims are advisory, so a collision is still 201.
type ClaimCreated struct {
	ClaimOut
	Collisions []ClaimOut `json:"collisions"`
}

// SpaceMetricsOut is a space's metrics on the wire.
type SpaceMetricsOut struct {
	SpaceID      smriti.ID           `json:"space_id"`
	SpaceName    string              `json:"space_name"`
	ComputedAt   time.Time           `json:"computed_at"`
	Coordination CoordinationMetrics `json:"coordination"`
	StateQuality StateQualityMetrics `json:"state_quality"`
	Branches     BranchMetrics       `json:"branches"`
}

// CoordinationMetrics counts checkpoints by agent and claims by outcome.
type CoordinationMetrics struct {
	TotalCheckpoints        int            `json:"total_checkpoints"`
	UniqueAgents            int            `json:"unique_agents"`
	AgentCheckpoints        map[string]int `json:"agent_checkpoints"`
	CrossAgentContinuations int            `json:"cross_agent_continuations"`
	TotalClaims             int            `json:"total_claims"`
	ClaimsDone              int            `json:"claims_done"`
	ClaimsAbandoned         int            `json:"claims_abandoned"`
	ClaimsWithTaskID        int            `json:"claims_with_task_id"`
	// ClaimCompletionRate is done/(done+abandoned) to two decimals, null
	// when no claim is finished.
	ClaimCompletionRate *float64 `json:"claim_completion_rate"`
}

// StateQualityMetrics measures how rich the checkpoints are.
type StateQualityMetrics struct {
	// Averages per checkpoint, to one decimal (halves away from zero).
	AvgDecisionsPerCheckpoint      float64 `json:"avg_decisions_per_checkpoint"`
	AvgTasksPerCheckpoint          float64 `json:"avg_tasks_per_checkpoint"`
	CheckpointsWithStructuredTasks int     `json:"checkpoints_with_structured_tasks"`
	CheckpointsWithTaskIDs         int     `json:"checkpoints_with_task_ids"`
	MilestoneCount                 int     `json:"milestone_count"`
	NoiseCount                     int     `json:"noise_count"`
}

// BranchMetrics counts sessions off main by disposition.
type BranchMetrics struct {
	Active     int `json:"active"`
	Integrated int `json:"integrated"`
	Abandoned  int `json:"abandoned"`
}

func metricsOf(m *smriti.SpaceMetrics) SpaceMetricsOut {
	return SpaceMetricsOut{SpaceID: m.SpaceID, SpaceName: m.SpaceName, ComputedAt: m.ComputedAt,
		Coordination: CoordinationMetrics{TotalCheckpoints: m.TotalCheckpoints, UniqueAgents: m.UniqueAgents,
			AgentCheckpoints: m.AgentCheckpoints, CrossAgentContinuations: m.CrossAgentContinuations,
			TotalClaims: m.TotalClaims, ClaimsDone: m.ClaimsDone, ClaimsAbandoned: m.ClaimsAbandoned,
			ClaimsWithTaskID: m.ClaimsWithTaskID, ClaimCompletionRate: m.ClaimCompletionRate()},
		StateQuality: StateQualityMetrics{AvgDecisionsPerCheckpoint: m.AvgDecisions(), AvgTasksPerCheckpoint: m.AvgTasks(),
			CheckpointsWithStructuredTasks: m.StructuredTasks, CheckpointsWithTaskIDs: m.TaskIDCheckpoints,
			MilestoneCount: m.MilestoneNotes, NoiseCount: m.NoiseNotes},
		Branches: BranchMetrics{Active: m.BranchesActive, Integrated: m.BranchesIntegrated, Abandoned: m.BranchesAbandoned},
	}
}
