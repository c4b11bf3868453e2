package wire

import (
	"time"

	"smriti"
	"smriti/coord"
	"smriti/internal/nonnil"
	"smriti/internal/textutil"
	"smriti/remote"
)

// The coordination answers keep the first implementation's shapes (its
// clients read them unchanged) and add counts for what a cap cut.

// SpaceState is the state brief on the wire.
type SpaceState struct {
	Space          StateSpace     `json:"space" doc:"The space"`
	Head           Head           `json:"head" doc:"main's head, as /head answers"`
	Commit         *Commit        `json:"commit" doc:"main's newest checkpoint in full (null when none)"`
	ActiveBranches []ActiveBranch `json:"active_branches" doc:"Branches other than main with active sessions, newest first, at most 20"`
	// ActiveBranchesMore counts active branches beyond the listed ones.
	ActiveBranchesMore int           `json:"active_branches_more" doc:"Active branches beyond the listed ones"`
	ActiveClaims       []StateClaim  `json:"active_claims" doc:"Live claims, newest first, at most 10"`
	ActiveClaimsMore   int           `json:"active_claims_more" doc:"Live claims beyond the listed ones"`
	Divergence         *Divergence   `json:"divergence" doc:"Where branches' decisions disagree with main's (null when none)"`
	Freshness          *FreshnessOut `json:"freshness" doc:"What changed since ?since= (null without it)"`
	// Mount is the asking session's mounted checkpoint (session_id given).
	Mount *MountOut `json:"mount" doc:"The mount of ?session= (null without it or when that session has none)"`
	// BriefTokens is what this state costs an agent as the compact brief.
	BriefTokens int `json:"brief_tokens" doc:"o200k tokens of this state's compact markdown brief (GET /api/v5/spaces/{id}/brief?compact=true), its closing \"~N tokens\" line included"`
	// LastCompaction is the space's newest compaction receipt.
	LastCompaction *ReceiptOut `json:"last_compaction" doc:"The space's newest compaction receipt (null before any agent host compacted)"`
	// ProposalsWaiting are the pending proposals, newest first.
	ProposalsWaiting []ProposalWaitingOut `json:"proposals_waiting" doc:"The space's pending proposals (drafts saved for later), newest first"`
	Remotes          []DivergenceOut      `json:"remotes" doc:"How each branch tracked on another copy of the space stands against it (empty: no remote)"`
}

// StateSpace is the space part of the state brief.
type StateSpace struct {
	ID          smriti.ID `json:"id" doc:"The space"`
	Name        string    `json:"name" doc:"Its name"`
	Description *string   `json:"description" doc:"What it is about (null when none)"`
	ProjectRoot *string   `json:"project_root" doc:"Absolute path of the project (null when none)"`
}

// ActiveBranch is an active branch's head.
type ActiveBranch struct {
	BranchName  string    `json:"branch_name" doc:"The branch"`
	CommitID    smriti.ID `json:"commit_id" doc:"The branch's newest checkpoint"`
	CommitHash  string    `json:"commit_hash" doc:"Its hash (64 hex digits)"`
	Message     string    `json:"message" doc:"Its title"`
	AuthorAgent *string   `json:"author_agent" doc:"Who wrote its newest checkpoint (null when unknown)"`
	CreatedAt   time.Time `json:"created_at" doc:"When it was written (RFC 3339, UTC)"`
	Summary     string    `json:"summary" doc:"Its summary, cut to 200 characters"`
}

// StateClaim is a live claim in the state brief.
type StateClaim struct {
	ID         smriti.ID  `json:"id" doc:"The claim"`
	Agent      string     `json:"agent" doc:"The agent's tag, such as claude-code or codex"`
	BranchName string     `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
	Scope      string     `json:"scope" doc:"What the claimed work covers, in a few words"`
	TaskID     *string    `json:"task_id" doc:"The task's id in the checkpoint's tasks (null when none)"`
	WorktreeID *smriti.ID `json:"worktree_id" doc:"The bound git worktree (UUID; null when none)"`
	// Worktree is the bound worktree with its drift; null when unbound,
	// closed, or when probing it failed.
	Worktree       *StateWorktree `json:"worktree" doc:"The bound worktree and its git state (null when unbound, closed, or probing failed)"`
	IntentType     string         `json:"intent_type" doc:"What kind of work: implement, review, investigate, docs or test"`
	ClaimedAt      time.Time      `json:"claimed_at" doc:"When it was claimed (RFC 3339, UTC)"`
	ExpiresAt      time.Time      `json:"expires_at" doc:"When it expires (RFC 3339, UTC)"`
	BaseCommitHash *string        `json:"base_commit_hash" doc:"The base checkpoint's hash, 7 characters (null when none or deleted)"`
}

// StateWorktree is a claim's worktree and its drift.
type StateWorktree struct {
	ID     smriti.ID `json:"id" doc:"The worktree"`
	Path   string    `json:"path" doc:"Its directory"`
	Branch string    `json:"branch" doc:"Its git branch"`
	coord.WorktreeProbe
}

// Divergence lists where main's and active branches' decisions differ.
type Divergence struct {
	Pairs []DivergencePair `json:"pairs" doc:"Branches whose decisions disagree with main's, at most 20"`
	// More counts divergent branches beyond the listed pairs.
	More int `json:"more" doc:"Divergent branches beyond the listed pairs"`
}

// DivergencePair is one branch's divergence from main.
type DivergencePair struct {
	BranchName          string   `json:"branch_name" doc:"The branch"`
	BranchCommitHash    string   `json:"branch_commit_hash" doc:"Its newest checkpoint's hash (64 hex digits)"`
	MainOnlyDecisions   []string `json:"main_only_decisions" doc:"Decisions only main has, at most 3"`
	BranchOnlyDecisions []string `json:"branch_only_decisions" doc:"Decisions only the branch has, at most 3"`
}

// FreshnessOut says whether main moved since a checkpoint.
type FreshnessOut struct {
	Changed             bool             `json:"changed" doc:"main moved since the checkpoint named by ?since="`
	SinceCommitHash     string           `json:"since_commit_hash" doc:"The hash ?since= named, 7 characters"`
	CurrentHeadHash     string           `json:"current_head_hash" doc:"main's head now, 7 characters"`
	NewCheckpointsCount int              `json:"new_checkpoints_count" doc:"Checkpoints on main after it"`
	NewCheckpoints      []FreshCommitOut `json:"new_checkpoints" doc:"The newest of them, at most 5, newest first"`
}

// FreshCommitOut is a checkpoint in a freshness list.
type FreshCommitOut struct {
	ID          smriti.ID `json:"id" doc:"The checkpoint"`
	CommitHash  string    `json:"commit_hash" doc:"Its hash, 7 characters"`
	AuthorAgent *string   `json:"author_agent" doc:"Who wrote it: an agent tag such as claude-code, a model, or a person (null when unknown)"`
	Message     string    `json:"message" doc:"Its title"`
	CreatedAt   time.Time `json:"created_at" doc:"When it was written (RFC 3339, UTC)"`
}

// MountOut is a session's mounted checkpoint.
type MountOut struct {
	SessionID  smriti.ID `json:"session_id" doc:"The mounted session"`
	CommitID   smriti.ID `json:"commit_id" doc:"The mounted checkpoint"`
	CommitHash string    `json:"commit_hash" doc:"Its hash (64 hex digits)"`
	Message    string    `json:"message" doc:"Its title"`
}

func SpaceStateOf(b *coord.StateBrief, head Head, now time.Time) SpaceState {
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
		c := CommitOf(b.Head)
		out.Commit = &c
	}
	if b.Compaction != nil {
		r := ReceiptOf(b.Compaction)
		out.LastCompaction = &r
	}
	for _, h := range b.Branches {
		out.ActiveBranches = append(out.ActiveBranches, ActiveBranch{BranchName: h.Branch, CommitID: h.CheckpointID,
			CommitHash: h.Hash, Message: h.Message, AuthorAgent: h.AuthorAgent, CreatedAt: h.CreatedAt, Summary: h.Summary})
	}
	for _, c := range b.Claims {
		sc := StateClaim{ID: c.ID, Agent: c.Agent, BranchName: c.BranchName, Scope: c.Scope, TaskID: c.TaskID,
			WorktreeID: c.WorktreeID, IntentType: c.Intent, ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}
		if c.BaseHash != "" {
			h := textutil.ShortHash(c.BaseHash)
			sc.BaseCommitHash = &h
		}
		if c.Worktree != nil && c.Probe != nil {
			sc.Worktree = &StateWorktree{ID: c.Worktree.ID, Path: c.Worktree.Path, Branch: c.Worktree.BranchName,
				WorktreeProbe: *ProbeOut(c.Probe, now)}
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
		fo := &FreshnessOut{Changed: f.Changed, SinceCommitHash: textutil.ShortHash(f.SinceHash),
			CurrentHeadHash: textutil.ShortHash(f.CurrentHeadHash), NewCheckpointsCount: f.NewCount, NewCheckpoints: []FreshCommitOut{}}
		for _, c := range f.New {
			fo.NewCheckpoints = append(fo.NewCheckpoints, FreshCommitOut{ID: c.ID, CommitHash: textutil.ShortHash(c.Hash),
				AuthorAgent: c.AuthorAgent, Message: c.Message, CreatedAt: c.CreatedAt})
		}
		out.Freshness = fo
	}
	out.ProposalsWaiting = proposalsWaitingOf(b.Proposals)
	out.Remotes = DivergenceOf(b.Remotes, now)
	if m := b.Mount; m != nil {
		out.Mount = &MountOut{SessionID: m.SessionID, CommitID: m.CheckpointID, CommitHash: m.Hash, Message: m.Message}
	}
	return out
}

// Brief turns the wire state back into the domain's brief, so a client can
// render it with smriti.RenderBrief exactly as the server would (hashes the
// wire shortens stay short; a worktree whose probe failed shows as such).
func (st *SpaceState) Brief() *coord.StateBrief {
	b := &coord.StateBrief{
		Space:        &smriti.Space{ID: st.Space.ID, Name: st.Space.Name, ProjectRoot: st.Space.ProjectRoot},
		MoreBranches: st.ActiveBranchesMore, MoreClaims: st.ActiveClaimsMore,
		Branches: []coord.BranchHead{}, Claims: []coord.ActiveClaim{},
	}
	if st.Space.Description != nil {
		b.Space.Description = *st.Space.Description
	}
	if c := st.Commit; c != nil {
		b.Head = checkpointOf(c)
	}
	if r := st.LastCompaction; r != nil {
		b.Compaction = r.Receipt()
	}
	for _, h := range st.ActiveBranches {
		b.Branches = append(b.Branches, coord.BranchHead{Branch: h.BranchName, CheckpointID: h.CommitID, Hash: h.CommitHash,
			Message: h.Message, AuthorAgent: h.AuthorAgent, Summary: h.Summary, CreatedAt: h.CreatedAt})
	}
	for _, c := range st.ActiveClaims {
		ac := coord.ActiveClaim{Claim: coord.Claim{ID: c.ID, SpaceID: st.Space.ID, Agent: c.Agent, BranchName: c.BranchName,
			WorktreeID: c.WorktreeID, Scope: c.Scope, TaskID: c.TaskID, Intent: c.IntentType, Status: coord.ClaimActive,
			ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}}
		if c.BaseCommitHash != nil {
			ac.BaseHash = *c.BaseCommitHash
		}
		if w := c.Worktree; w != nil {
			p := w.WorktreeProbe
			ac.Worktree = &coord.Worktree{ID: w.ID, SpaceID: st.Space.ID, Path: w.Path, BranchName: w.Branch, Status: coord.WorktreeActive}
			ac.Probe = &p
		}
		b.Claims = append(b.Claims, ac)
	}
	if d := st.Divergence; d != nil {
		b.MoreDivergent = d.More
		for _, p := range d.Pairs {
			b.Divergence = append(b.Divergence, coord.DivergencePair{Branch: p.BranchName, BranchHash: p.BranchCommitHash,
				MainOnly: p.MainOnlyDecisions, BranchOnly: p.BranchOnlyDecisions})
		}
	}
	if f := st.Freshness; f != nil {
		b.Freshness = &coord.Freshness{Changed: f.Changed, SinceHash: f.SinceCommitHash, CurrentHeadHash: f.CurrentHeadHash,
			NewCount: f.NewCheckpointsCount}
		for _, c := range f.NewCheckpoints {
			b.Freshness.New = append(b.Freshness.New, coord.FreshCheckpoint{ID: c.ID, Hash: c.CommitHash,
				AuthorAgent: c.AuthorAgent, Message: c.Message, CreatedAt: c.CreatedAt})
		}
	}
	b.Proposals = st.proposalsWaiting()
	for _, d := range st.Remotes {
		b.Remotes = append(b.Remotes, remote.Divergence{Branch: d.Branch, Remote: d.Remote, Ahead: d.Ahead, Behind: d.Behind, FetchedAt: d.FetchedAt})
	}
	if m := st.Mount; m != nil {
		b.Mount = &coord.MountedCheckpoint{SessionID: m.SessionID, CheckpointID: m.CommitID, Hash: m.CommitHash, Message: m.Message}
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
	ID           smriti.ID  `json:"id" doc:"The claim"`
	RepoID       smriti.ID  `json:"repo_id" doc:"The space (UUID; spaces are repos on the wire)"`
	SessionID    *smriti.ID `json:"session_id" doc:"The session that claimed (null when none)"`
	Agent        string     `json:"agent" doc:"The agent's tag, such as claude-code or codex"`
	BranchName   string     `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
	BaseCommitID *smriti.ID `json:"base_commit_id" doc:"The checkpoint the work starts from (the CLI and MCP bind main's head)"`
	TaskID       *string    `json:"task_id" doc:"The task's id in the checkpoint's tasks (null when none)"`
	WorktreeID   *smriti.ID `json:"worktree_id" doc:"The bound git worktree (UUID; null when none)"`
	Scope        string     `json:"scope" doc:"What the claimed work covers, in a few words"`
	IntentType   string     `json:"intent_type" doc:"What kind of work: implement, review, investigate, docs or test"`
	Status       string     `json:"status" doc:"active, done or abandoned; an active claim past expires_at is expired (the status stays active)"`
	ClaimedAt    time.Time  `json:"claimed_at" doc:"When the claim was made (RFC 3339, UTC)"`
	ExpiresAt    time.Time  `json:"expires_at" doc:"claimed_at plus the TTL; expiry is a filter, nothing changes the status"`
}

func ClaimOf(c *coord.Claim) ClaimOut {
	return ClaimOut{ID: c.ID, RepoID: c.SpaceID, SessionID: c.SessionID, Agent: c.Agent, BranchName: c.BranchName,
		BaseCommitID: c.BaseCheckpointID, TaskID: c.TaskID, WorktreeID: c.WorktreeID, Scope: c.Scope,
		IntentType: c.Intent, Status: c.Status, ClaimedAt: c.ClaimedAt, ExpiresAt: c.ExpiresAt}
}

func ClaimsOf(cs []*coord.Claim) []ClaimOut {
	return nonnil.Convert(cs, ClaimOf)
}

// ClaimCreated is a new claim and the live claims it collides with (same
// task id or same scope); claims are advisory, so a collision is still 201.
type ClaimCreated struct {
	ClaimOut
	Collisions []ClaimOut         `json:"collisions" doc:"Live claims of the space about the same work (the same task id, or the same scope); [] when none. Claims are advisory: the new claim is stored anyway"`
	Redactions []smriti.Redaction `json:"redactions,omitempty" doc:"Present only when the scope held a secret: its field (scope) and rule; the stored scope holds [redacted: rule] in its place"`
}

// SpaceMetricsOut is a space's metrics on the wire.
type SpaceMetricsOut struct {
	SpaceID      smriti.ID           `json:"space_id" doc:"The space"`
	SpaceName    string              `json:"space_name" doc:"Its name"`
	ComputedAt   time.Time           `json:"computed_at" doc:"When the figures were computed (RFC 3339, UTC)"`
	Coordination CoordinationMetrics `json:"coordination" doc:"Agents, continuations and claims"`
	StateQuality StateQualityMetrics `json:"state_quality" doc:"How structured the checkpoints are"`
	Branches     BranchMetrics       `json:"branches" doc:"Branches by disposition"`
}

// CoordinationMetrics counts checkpoints by agent and claims by outcome.
type CoordinationMetrics struct {
	TotalCheckpoints        int            `json:"total_checkpoints" doc:"Checkpoints in the space"`
	UniqueAgents            int            `json:"unique_agents" doc:"Distinct author_agent values among them"`
	AgentCheckpoints        map[string]int `json:"agent_checkpoints" doc:"Checkpoints per author_agent"`
	CrossAgentContinuations int            `json:"cross_agent_continuations" doc:"Checkpoints whose parent was written by another agent"`
	TotalClaims             int            `json:"total_claims" doc:"Claims of the space, in any status"`
	ClaimsDone              int            `json:"claims_done" doc:"Claims marked done"`
	ClaimsAbandoned         int            `json:"claims_abandoned" doc:"Claims marked abandoned"`
	ClaimsWithTaskID        int            `json:"claims_with_task_id" doc:"Claims naming a task id"`
	// ClaimCompletionRate is done/(done+abandoned) to two decimals, null
	// when no claim is finished.
	ClaimCompletionRate *float64 `json:"claim_completion_rate" doc:"done / (done + abandoned), two decimals; null when neither"`
}

// StateQualityMetrics measures how rich the checkpoints are.
type StateQualityMetrics struct {
	// Averages per checkpoint, to one decimal (halves away from zero).
	AvgDecisionsPerCheckpoint      float64 `json:"avg_decisions_per_checkpoint" doc:"Decisions per checkpoint, two decimals"`
	AvgTasksPerCheckpoint          float64 `json:"avg_tasks_per_checkpoint" doc:"Tasks per checkpoint, two decimals"`
	CheckpointsWithStructuredTasks int     `json:"checkpoints_with_structured_tasks" doc:"Checkpoints with a task carrying an intent_hint"`
	CheckpointsWithTaskIDs         int     `json:"checkpoints_with_task_ids" doc:"Checkpoints with a task carrying an id"`
	MilestoneCount                 int     `json:"milestone_count" doc:"Notes of kind milestone"`
	NoiseCount                     int     `json:"noise_count" doc:"Notes of kind noise"`
}

// BranchMetrics counts sessions off main by disposition.
type BranchMetrics struct {
	Active     int `json:"active" doc:"Branches still being worked on"`
	Integrated int `json:"integrated" doc:"Branches marked integrated (merged back)"`
	Abandoned  int `json:"abandoned" doc:"Branches marked abandoned"`
}

func MetricsOf(m *coord.SpaceMetrics) SpaceMetricsOut {
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
