package wire

import (
	"time"

	"smriti"
	"smriti/remote"
)

// RemoteRequest adds a remote to a space.
type RemoteRequest struct {
	Name          string  `json:"name" doc:"How commands name the remote, e.g. origin"`
	URL           string  `json:"url" doc:"The other copy: a Smriti server's base URL (http or https), or a git repository (an absolute path, ssh://, git@host:path, file://, an http(s) URL ending in .git, or git+URL)"`
	RemoteSpaceID *string `json:"remote_space_id" doc:"The space's id on the other server; null: the same id as here (a clone keeps ids)"`
	Token         *string `json:"token" doc:"An API token for the other server in auth mode; kept as a secret and never answered"`
}

// RemoteHeadOut is a remote-tracking head (origin/main).
type RemoteHeadOut struct {
	Branch       string    `json:"branch" doc:"The branch"`
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"Its head on the remote"`
	CommitHash   string    `json:"commit_hash" doc:"The head's hash"`
	UpdatedAt    time.Time `json:"updated_at" doc:"When this copy last saw it (a fetch or a push)"`
}

// DivergenceOut is how a local branch stands against its remote-tracking head.
type DivergenceOut struct {
	Branch      string     `json:"branch" doc:"The branch"`
	Remote      string     `json:"remote" doc:"The remote"`
	Ahead       int        `json:"ahead" doc:"Local checkpoints the remote lacks"`
	Behind      int        `json:"behind" doc:"Fetched checkpoints the local branch lacks (a pull brings them)"`
	FetchedAt   *time.Time `json:"fetched_at" doc:"When the remote was last fetched (null: never)"`
	Description string     `json:"description" doc:"The same in words, e.g. main is 2 ahead, 3 behind origin/main (fetched 4m ago)"`
}

// RemoteOut is a remote of a space. Its token is never answered.
type RemoteOut struct {
	Name          string          `json:"name" doc:"The remote's name"`
	URL           string          `json:"url" doc:"The other copy: a Smriti server's base URL or a git repository's location"`
	RemoteSpaceID smriti.ID       `json:"remote_space_id" doc:"The space's id there"`
	Token         *string         `json:"token" doc:"The token's last four characters (…abcd), null when it has none; the token itself is never answered"`
	FetchedAt     *time.Time      `json:"fetched_at" doc:"When it was last fetched (null: never)"`
	CreatedAt     time.Time       `json:"created_at" doc:"When it was added"`
	Heads         []RemoteHeadOut `json:"heads" doc:"Its branch heads as this copy last saw them"`
	Divergence    []DivergenceOut `json:"divergence" doc:"How each tracked branch stands against the local one"`
}

// RemoteOf is a remote on the wire.
func RemoteOf(r *remote.Remote, div []remote.Divergence, now time.Time) RemoteOut {
	out := RemoteOut{Name: r.Name, URL: r.URL, RemoteSpaceID: r.RemoteSpaceID, FetchedAt: r.FetchedAt, CreatedAt: r.CreatedAt.UTC(),
		Heads: HeadsOf(r.Heads), Divergence: DivergenceOf(div, now)}
	if hint := r.TokenHint(); hint != "" {
		out.Token = &hint
	}
	return out
}

// HeadsOf is a list of heads on the wire.
func HeadsOf(hs []remote.Head) []RemoteHeadOut {
	out := make([]RemoteHeadOut, 0, len(hs))
	for _, h := range hs {
		out = append(out, RemoteHeadOut{Branch: h.Branch, CheckpointID: h.CheckpointID, CommitHash: h.Hash, UpdatedAt: h.UpdatedAt.UTC()})
	}
	return out
}

// DivergenceOf is a list of divergences on the wire.
func DivergenceOf(ds []remote.Divergence, now time.Time) []DivergenceOut {
	out := make([]DivergenceOut, 0, len(ds))
	for _, d := range ds {
		out = append(out, DivergenceOut{Branch: d.Branch, Remote: d.Remote, Ahead: d.Ahead, Behind: d.Behind, FetchedAt: d.FetchedAt,
			Description: d.Describe(now)})
	}
	return out
}

// SyncHeadOut is a branch head of the answering server.
type SyncHeadOut struct {
	Branch       string    `json:"branch" doc:"The branch"`
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"Its newest checkpoint"`
	CommitHash   string    `json:"commit_hash" doc:"That checkpoint's hash"`
}

// SyncRefs is the answering side of a fetch or push: where the space's
// branches stand here.
type SyncRefs struct {
	SpaceID smriti.ID     `json:"space_id" doc:"The space"`
	Heads   []SyncHeadOut `json:"heads" doc:"Each branch's head"`
	Cursor  int64         `json:"cursor" doc:"The log position of the space's newest turn (-1: none); a fetch asks for turns after the cursor it last saw"`
}

// SyncFetchRequest asks for the records the asker lacks.
type SyncFetchRequest struct {
	Haves    []string `json:"haves" doc:"Hashes of checkpoints the asker has (their ancestors too); at most 256"`
	Branches []string `json:"branches" doc:"Only these branches' histories (empty: every branch)"`
	Since    *int64   `json:"since" doc:"The answering server's log position after which turns are wanted (null or -1: every turn)"`
}

// Want is the request as the store reads it.
func (r *SyncFetchRequest) Want() remote.Want {
	w := remote.Want{Haves: r.Haves, Branches: r.Branches, Since: -1}
	if r.Since != nil {
		w.Since = *r.Since
	}
	return w
}

// SyncCounts is what a sync step wrote.
type SyncCounts struct {
	Checkpoints int      `json:"checkpoints" doc:"Checkpoints written"`
	Sessions    int      `json:"sessions" doc:"Sessions written"`
	Turns       int      `json:"turns" doc:"Turns written"`
	Skipped     []string `json:"skipped" doc:"Records left out, each with the reason (a turn both copies added at one place of a session)"`
}

// CountsOf is c on the wire.
func CountsOf(c remote.Counts) SyncCounts {
	skipped := c.Skipped
	if skipped == nil {
		skipped = []string{}
	}
	return SyncCounts{Checkpoints: c.Checkpoints, Sessions: c.Sessions, Turns: c.Turns, Skipped: skipped}
}

// SyncPushOut is the answering side's result of a push.
type SyncPushOut struct {
	Branch string     `json:"branch" doc:"The branch that moved"`
	Head   string     `json:"head" doc:"Its head now"`
	Stored SyncCounts `json:"stored" doc:"What was new here (a retried push stores nothing)"`
}

// FetchOut is what a fetch brought.
type FetchOut struct {
	Remote     string          `json:"remote" doc:"The remote fetched from"`
	Staged     SyncCounts      `json:"staged" doc:"What arrived and waits for a pull (verified; no local branch moved)"`
	Heads      []RemoteHeadOut `json:"heads" doc:"The remote's branch heads"`
	Divergence []DivergenceOut `json:"divergence" doc:"How each tracked branch stands now"`
}

// PullRequest integrates a remote's branch into the local one.
type PullRequest struct {
	Branch     string `json:"branch" doc:"The branch to pull (empty: main)"`
	OnConflict string `json:"on_conflict" doc:"What to do with items both copies changed: propose (default: keep the local side and leave a proposal with the other side), fail (write nothing), ours or theirs"`
	NoFetch    bool   `json:"no_fetch" doc:"Integrate what an earlier fetch brought, without fetching"`
}

// PullOut is what a pull did.
type PullOut struct {
	Outcome   string                 `json:"outcome" doc:"up_to_date, fast_forward, merged, or merged_with_proposal (conflicts wait in the proposal)"`
	Fetch     *FetchOut              `json:"fetch" doc:"The fetch it ran first (null with no_fetch)"`
	Head      *Commit                `json:"head" doc:"The local branch's head afterwards (null when it has none)"`
	Merge     *Commit                `json:"merge" doc:"The merge checkpoint written (null unless merged)"`
	Conflicts []smriti.MergeConflict `json:"conflicts" doc:"Items both copies changed, by item id"`
	Proposal  *ProposalOut           `json:"proposal" doc:"With on_conflict propose and conflicts: the proposal holding the other copy's side of each (accept it to take that side, reject it to keep this one)"`
	Applied   SyncCounts             `json:"applied" doc:"What the pull applied here"`
}

// PushRequest sends a branch to a remote.
type PushRequest struct {
	Branch  string `json:"branch" doc:"The branch to push (empty: main)"`
	Propose bool   `json:"propose" doc:"Land the branch's state on the remote as a pending proposal for review there, instead of moving its branch"`
}

// PushOut is what a push did.
type PushOut struct {
	Outcome string     `json:"outcome" doc:"pushed, proposed (with propose) or up_to_date"`
	Branch  string     `json:"branch" doc:"The branch"`
	OldHead *string    `json:"old_head" doc:"The remote's head before (null: the branch was new there)"`
	NewHead string     `json:"new_head" doc:"The remote's head now"`
	Stored  SyncCounts `json:"stored" doc:"What the remote stored"`
	// ProposalID is set by a push with propose.
	ProposalID *smriti.ID `json:"proposal_id" doc:"With propose: the proposal now waiting on the remote (null otherwise)"`
}

// CloneRequest makes a local copy of a space on another server.
type CloneRequest struct {
	URL     string  `json:"url" doc:"The other copy: a Smriti server's base URL or a git repository's location (as for a remote)"`
	SpaceID *string `json:"space_id" doc:"The space's id there"`
	Token   *string `json:"token" doc:"An API token for the other server in auth mode (kept as the remote's secret)"`
	Name    string  `json:"name" doc:"The remote's name here (empty: origin)"`
}

// CloneOut is the copy a clone made.
type CloneOut struct {
	Repo   Repo      `json:"repo" doc:"The space, with the same id as on the other server"`
	Remote RemoteOut `json:"remote" doc:"The other server, recorded as this space's remote"`
}

// SessionPrivateRequest marks a session private or shared.
type SessionPrivateRequest struct {
	Private *bool `json:"private" doc:"true: the session's turns, quotes, receipts and context records never leave this server (push, fetch, clone, export)"`
}

// SessionPrivateOut says whether a session is private.
type SessionPrivateOut struct {
	SessionID smriti.ID `json:"session_id" doc:"The session"`
	Private   bool      `json:"private" doc:"Whether it never leaves this server"`
}
