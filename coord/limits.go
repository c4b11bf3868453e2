package coord

import "time"

// Limits of coordination: how long a claim lives, how long its texts may be
// (in characters), and what the state brief lists. What the brief cuts is
// counted, never silently dropped.
const (
	// MinClaimTTL and MaxClaimTTL bound a claim's time to live;
	// DefaultClaimTTL is what a claim that names none gets.
	MinClaimTTL     = time.Minute
	MaxClaimTTL     = 7 * 24 * time.Hour
	DefaultClaimTTL = 4 * time.Hour
	// MaxClaimAgent caps the agent a claim names.
	MaxClaimAgent = 100
	// maxClaimScope caps a claim's scope.
	maxClaimScope = 2000
	// maxClaimTaskID caps the task id a claim names.
	maxClaimTaskID = 100
	// MinWorktreePrefix is the shortest id prefix that addresses a worktree.
	MinWorktreePrefix = 4
	// MaxProbePaths bounds WorktreeProbe.DirtyPaths.
	MaxProbePaths = 3
	// ActiveBranchesCap caps the active branches the brief lists.
	ActiveBranchesCap = 20
	// DivergenceCap caps the branches whose divergence from main the brief
	// shows (the first implementation checked only two), and
	// divergenceItemsCap the decisions shown on each side.
	DivergenceCap      = 20
	divergenceItemsCap = 3
	// ActiveClaimsCap caps the live claims the brief lists.
	ActiveClaimsCap = 10
	// FreshnessListCap caps the new main checkpoints a freshness answer
	// lists (it counts them all).
	FreshnessListCap = 5
	// BranchSummaryCap caps the characters of a branch head's summary the
	// brief shows.
	BranchSummaryCap = 200
)
