package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"smriti"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
)

// Copies of one space (SPEC §3): remotes, and fetch, pull, push and clone
// between this server and another. This server talks to the other through
// a remote.Peer (the HTTP client, wired by main); the other server answers
// with SyncRefs, SyncExport and ReceivePush below.

// AddRemote records another copy of a space. A remote without a space id
// names the same space there (a clone keeps ids).
func (a *App) AddRemote(ctx context.Context, in remote.Create) (*remote.Remote, error) {
	return a.store.AddRemote(ctx, in)
}

// RemoteStatus is a remote with how each of its tracked branches stands
// against the local one.
type RemoteStatus struct {
	Remote     *remote.Remote
	Divergence []remote.Divergence
}

// Remotes lists a space's remotes with their divergence.
func (a *App) Remotes(ctx context.Context, space smriti.ID) ([]RemoteStatus, error) {
	list, err := a.store.Remotes(ctx, space)
	if err != nil {
		return nil, err
	}
	out := make([]RemoteStatus, 0, len(list))
	for _, r := range list {
		d, err := a.divergence(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, RemoteStatus{Remote: r, Divergence: d})
	}
	return out, nil
}

// ShowRemote returns one remote with its divergence.
func (a *App) ShowRemote(ctx context.Context, space smriti.ID, name string) (*RemoteStatus, error) {
	r, err := a.store.Remote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	d, err := a.divergence(ctx, r)
	if err != nil {
		return nil, err
	}
	return &RemoteStatus{Remote: r, Divergence: d}, nil
}

// RemoveRemote forgets a remote.
func (a *App) RemoveRemote(ctx context.Context, space smriti.ID, name string) error {
	return a.store.RemoveRemote(ctx, space, name)
}

// SetSessionPrivate marks a session private (it never leaves this server)
// or shared.
func (a *App) SetSessionPrivate(ctx context.Context, id smriti.ID, private bool) error {
	return a.store.SetSessionPrivate(ctx, id, private)
}

// SessionPrivate reports whether a session is private.
func (a *App) SessionPrivate(ctx context.Context, id smriti.ID) (bool, error) {
	return a.store.SessionPrivate(ctx, id)
}

// remoteDivergence is how the space stands against each of its remotes.
func (a *App) remoteDivergence(ctx context.Context, space smriti.ID) ([]remote.Divergence, error) {
	list, err := a.store.Remotes(ctx, space)
	if err != nil {
		return nil, err
	}
	var out []remote.Divergence
	for _, r := range list {
		d, err := a.divergence(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	return out, nil
}

// divergence says, for each tracked branch, how many local checkpoints the
// remote lacks and how many fetched ones the local branch lacks.
func (a *App) divergence(ctx context.Context, r *remote.Remote) ([]remote.Divergence, error) {
	out := []remote.Divergence{}
	for _, h := range r.Heads {
		d := remote.Divergence{Branch: h.Branch, Remote: r.Name, FetchedAt: r.FetchedAt}
		var err error
		if d.Behind, err = a.store.StagedCount(ctx, r.SpaceID, r.Name, h.Branch); err != nil {
			return nil, err
		}
		local, err := a.store.LatestCheckpoints(ctx, r.SpaceID, h.Branch, 1)
		if err != nil {
			return nil, err
		}
		if len(local) == 1 {
			base, err := a.syncBase(ctx, r.SpaceID, local[0].ID, h.CheckpointID)
			if err != nil {
				return nil, err
			}
			var baseID *smriti.ID
			if base != nil {
				baseID = &base.ID
			}
			if d.Ahead, err = a.store.AheadOf(ctx, local[0].ID, baseID); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// syncBase is the newest checkpoint in both local's history and the
// (stored or fetched) head's: local itself when the head descends from it.
func (a *App) syncBase(ctx context.Context, space, local, head smriti.ID) (*smriti.Checkpoint, error) {
	frontier, _, err := a.store.StagedFrontier(ctx, space, head)
	if err != nil {
		return nil, err
	}
	var best *smriti.Checkpoint
	for _, f := range frontier {
		c, err := a.store.CommonAncestor(ctx, local, f)
		if err != nil {
			return nil, err
		}
		if c != nil && (best == nil || c.LogPos > best.LogPos) {
			best = c
		}
	}
	return best, nil
}

// SyncRefs answers the other side of a fetch or push: the space's branch
// heads and its turn cursor.
func (a *App) SyncRefs(ctx context.Context, space smriti.ID) ([]remote.Head, int64, error) {
	return a.store.SyncHeads(ctx, space)
}

// SyncExport answers a fetch with sync records.
func (a *App) SyncExport(ctx context.Context, space smriti.ID, want remote.Want, w records.Writer) error {
	return a.store.SyncExport(ctx, space, want, w)
}

// ReceivePush stores a pushed sync stream (remote.Store.ApplyPush).
func (a *App) ReceivePush(ctx context.Context, space smriti.ID, push remote.Push, body io.Reader) (remote.Counts, error) {
	rd, err := portability.NewSyncReader(body)
	if err != nil {
		return remote.Counts{}, err
	}
	if rd.Space().ID != space {
		return remote.Counts{}, smriti.Errorf(smriti.EUNPROCESSABLE, "the pushed records are of space %s, not %s", rd.Space().ID, space)
	}
	return a.store.ApplyPush(ctx, space, push, rd)
}

// peer reaches a remote (EUNAVAILABLE when this server was built without a
// way to reach others).
func (a *App) peer(r *remote.Remote) (remote.Peer, error) {
	if a.dial == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "this server cannot reach other servers")
	}
	return a.dial(r.URL, r.Token), nil
}

// peerError names the remote in an error its server (or the way to it)
// gave, keeping the code; one that never reached it says what to check.
func peerError(r *remote.Remote, err error) error {
	var e *smriti.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	if e.Code == smriti.EUNAVAILABLE {
		return smriti.Errorf(smriti.EUNAVAILABLE, "cannot reach remote %s at %s; check it is up and the URL is right (smriti remote show %s)", r.Name, r.URL, r.Name)
	}
	out := *e
	out.Message = fmt.Sprintf("remote %s: %s", r.Name, e.Message)
	if m, ok := e.Data.(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range m {
			cp[k] = v
		}
		cp["message"] = out.Message
		out.Data = cp
	}
	return &out
}

// FetchResult is what a fetch brought.
type FetchResult struct {
	Remote     string
	Staged     remote.Counts
	Heads      []remote.Head
	Divergence []remote.Divergence
}

// Fetch brings what this copy lacks from a remote — verified record by
// record — and moves only the remote-tracking heads. Run again, it writes
// nothing; cut off, it keeps what it verified and the next fetch resumes.
func (a *App) Fetch(ctx context.Context, space smriti.ID, name string) (*FetchResult, error) {
	r, err := a.store.Remote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	peer, err := a.peer(r)
	if err != nil {
		return nil, err
	}
	want, err := a.haves(ctx, r)
	if err != nil {
		return nil, err
	}
	body, err := peer.Fetch(ctx, r.RemoteSpaceID, want)
	if err != nil {
		return nil, peerError(r, err)
	}
	defer body.Close()
	rd, err := portability.NewSyncReader(body)
	if err != nil {
		return nil, err
	}
	if rd.Space().ID != r.RemoteSpaceID {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "remote %s answered with space %s, not %s", name, rd.Space().ID, r.RemoteSpaceID)
	}
	staged, err := a.store.StageRecords(ctx, space, name, rd)
	if err != nil {
		return nil, err
	}
	end := rd.End()
	if end == nil {
		return nil, smriti.Errorf(smriti.EINVALID, "the fetch from %s ended before its end record; run it again to resume", name)
	}
	heads := make([]remote.Head, 0, len(end.Heads))
	for _, h := range end.Heads {
		id, err := smriti.ParseID("checkpoint_id", h.CheckpointID)
		if err != nil {
			return nil, err
		}
		heads = append(heads, remote.Head{Branch: h.Branch, CheckpointID: id, Hash: h.CommitHash})
	}
	cursor := end.Cursor
	if err := a.store.SetRemoteHeads(ctx, space, name, heads, &cursor, nil); err != nil {
		return nil, err
	}
	st, err := a.ShowRemote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	return &FetchResult{Remote: name, Staged: staged, Heads: heads, Divergence: st.Divergence}, nil
}

// haves names what this copy has for the remote to leave out: the local
// branch heads and the remote-tracking heads (a store holds every ancestor
// of what it holds, staged records included).
func (a *App) haves(ctx context.Context, r *remote.Remote) (remote.Want, error) {
	local, _, err := a.store.SyncHeads(ctx, r.SpaceID)
	if err != nil {
		return remote.Want{}, err
	}
	want := remote.Want{Haves: []string{}, Branches: []string{}, Since: r.FetchCursor}
	seen := map[string]bool{}
	for _, hs := range [][]remote.Head{local, r.Heads} {
		for _, h := range hs {
			if !seen[h.Hash] && len(want.Haves) < remote.MaxHaves {
				seen[h.Hash] = true
				want.Haves = append(want.Haves, h.Hash)
			}
		}
	}
	return want, nil
}

// Pull outcomes.
const (
	PullUpToDate    = "up_to_date"
	PullFastForward = "fast_forward"
	PullMerged      = "merged"
	PullProposed    = "merged_with_proposal"
)

// PullRequest asks to bring a remote's branch into the local one.
type PullRequest struct {
	SpaceID smriti.ID
	Remote  string
	// Branch is the branch to integrate ("" is main).
	Branch string
	Policy remote.Policy
	// NoFetch integrates what an earlier fetch brought.
	NoFetch bool
}

// PullResult is what a pull did.
type PullResult struct {
	Fetch   *FetchResult
	Outcome string
	// Head is the local branch's head afterwards.
	Head *smriti.Checkpoint
	// Merge is the merge checkpoint written (nil unless merged).
	Merge *smriti.Checkpoint
	// Conflicts are the items both copies changed (never nil).
	Conflicts []smriti.MergeConflict
	// Proposal, with the propose policy and conflicts, holds the other
	// copy's side of each conflict for a person to accept or reject.
	Proposal *smriti.Proposal
	Applied  remote.Counts
}

// Pull fetches, then integrates the remote's branch into the local one:
// a fast-forward when the local branch is in the fetched history;
// otherwise a three-way merge by item id against the true common ancestor,
// written on top of both lines. Items both copies changed follow the
// policy: fail writes nothing and answers the conflicts; ours and theirs
// take one side; propose (the default) keeps the local side and leaves a
// proposal holding the other side of every conflict.
func (a *App) Pull(ctx context.Context, in PullRequest) (*PullResult, error) {
	branch := in.Branch
	if branch == "" {
		branch = smriti.MainBranch
	}
	out := &PullResult{Outcome: PullUpToDate, Conflicts: []smriti.MergeConflict{}}
	if !in.NoFetch {
		f, err := a.Fetch(ctx, in.SpaceID, in.Remote)
		if err != nil {
			return nil, err
		}
		out.Fetch = f
	}
	r, err := a.store.Remote(ctx, in.SpaceID, in.Remote)
	if err != nil {
		return nil, err
	}
	var tracked *remote.Head
	for i := range r.Heads {
		if r.Heads[i].Branch == branch {
			tracked = &r.Heads[i]
		}
	}
	local, err := a.store.LatestCheckpoints(ctx, in.SpaceID, branch, 1)
	if err != nil {
		return nil, err
	}
	var head *smriti.Checkpoint
	var expect *smriti.ID
	if len(local) == 1 {
		head, expect = local[0], &local[0].ID
	}
	plan := remote.Integration{Branch: branch, ExpectHead: expect}
	if tracked != nil && (head == nil || tracked.CheckpointID != head.ID) {
		theirs, err := a.store.StagedCheckpoint(ctx, in.SpaceID, tracked.CheckpointID)
		switch {
		case smriti.ErrorCode(err) == smriti.ENOTFOUND:
			// The tracked head is stored already: in the local history, or
			// on another line that a merge brings in.
			if head != nil {
				inHistory, err := a.store.CommonAncestor(ctx, head.ID, tracked.CheckpointID)
				if err != nil {
					return nil, err
				}
				if inHistory == nil || inHistory.ID != tracked.CheckpointID {
					return nil, smriti.Errorf(smriti.ECONFLICT, "%s/%s is stored here on another line than %s; merge it with `smriti merge %s`", in.Remote, branch, branch, smriti.ShortHash(tracked.Hash))
				}
			}
		case err != nil:
			return nil, err
		default:
			base := (*smriti.Checkpoint)(nil)
			if head != nil {
				if base, err = a.syncBase(ctx, in.SpaceID, head.ID, theirs.ID); err != nil {
					return nil, err
				}
			}
			if head == nil || (base != nil && base.ID == head.ID) {
				out.Outcome = PullFastForward
			} else if err := a.planMerge(ctx, in, branch, head, base, theirs, &plan, out); err != nil {
				return nil, err
			}
		}
	}
	merge, applied, err := a.store.IntegrateStaged(ctx, in.SpaceID, in.Remote, plan)
	if err != nil {
		return nil, err
	}
	out.Merge, out.Applied = merge, applied
	if out.Proposal != nil && merge != nil {
		// The proposal was drafted against the merge: it can only be saved
		// now that the merge is stored.
		p := out.Proposal
		base := merge.ID
		if out.Proposal, err = a.SaveProposal(ctx, ProposalSave{SpaceID: in.SpaceID, BaseCheckpointID: &base, Source: "api", Draft: p.Draft}); err != nil {
			return nil, err
		}
	}
	now, err := a.store.LatestCheckpoints(ctx, in.SpaceID, branch, 1)
	if err != nil {
		return nil, err
	}
	if len(now) == 1 {
		out.Head = now[0]
	}
	return out, nil
}

// planMerge computes the merge of the fetched head into the local one and
// fills the plan (and, for propose with conflicts, the proposal to save).
func (a *App) planMerge(ctx context.Context, in PullRequest, branch string, head, base, theirs *smriti.Checkpoint, plan *remote.Integration, out *PullResult) error {
	side := func(c *smriti.Checkpoint, items []smriti.Item) *smriti.MergeSide {
		if c == nil {
			return nil
		}
		content := c.Content
		content.Message = ""
		return &smriti.MergeSide{Content: content, Items: items}
	}
	ourItems, err := a.store.CheckpointItems(ctx, head.ID)
	if err != nil {
		return err
	}
	var baseItems []smriti.Item
	if base != nil {
		if baseItems, err = a.store.CheckpointItems(ctx, base.ID); err != nil {
			return err
		}
	}
	sides := [3]*smriti.MergeSide{side(base, baseItems), side(head, ourItems), side(theirs, theirs.Items)}
	first, err := smriti.MergeStates(sides[0], sides[1], sides[2], nil)
	if err != nil {
		return err
	}
	out.Conflicts = first.Conflicts
	choose := func(choice string) []smriti.MergeResolution {
		res := make([]smriti.MergeResolution, 0, len(first.Conflicts))
		for _, c := range first.Conflicts {
			res = append(res, smriti.MergeResolution{Field: c.Field, Key: c.Key, Choice: choice})
		}
		return res
	}
	choice := "ours"
	switch in.Policy {
	case remote.Fail:
		if len(first.Conflicts) > 0 {
			msg := fmt.Sprintf("pull stopped: %d item(s) changed on both copies; nothing was written. Pull with --on-conflict propose, ours or theirs", len(first.Conflicts))
			return &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: map[string]any{"message": msg, "conflicts": first.Conflicts}}
		}
	case remote.Theirs:
		choice = "theirs"
	}
	merged, err := smriti.MergeStates(sides[0], sides[1], sides[2], choose(choice))
	if err != nil {
		return err
	}
	content := merged.Merged
	content.Message = fmt.Sprintf("Merge %s/%s into %s", in.Remote, branch, branch)
	author := smriti.MergeAuthor(ctx, nil, merged.Resolved)
	plan.Merge = &smriti.CheckpointCreate{SpaceID: in.SpaceID, ParentID: &head.ID, MergeParentID: &theirs.ID, BranchName: branch,
		AuthorAgent: author.Agent, AuthorType: author.Type, ProjectRoot: head.ProjectRoot, Content: content, Items: merged.Items,
		Metadata: map[string]any{"merge": map[string]any{
			"source_checkpoint_id": theirs.ID.String(), "target_checkpoint_id": head.ID.String(), "base_checkpoint_id": idString(base),
			"conflicts_resolved": merged.Resolved, "remote": in.Remote, "on_conflict": string(in.Policy),
		}}}
	out.Outcome = PullMerged
	if in.Policy == remote.Propose && len(first.Conflicts) > 0 {
		other, err := smriti.MergeStates(sides[0], sides[1], sides[2], choose("theirs"))
		if err != nil {
			return err
		}
		draft := other.Merged
		draft.Message = fmt.Sprintf("Take %s/%s's side of %d conflict(s)", in.Remote, branch, len(first.Conflicts))
		out.Proposal = &smriti.Proposal{Draft: smriti.ProposalDraft{Content: draft, Items: other.Items, AuthorType: author.Type,
			AuthorAgent: author.Agent, ProjectRoot: head.ProjectRoot, Conflicts: first.Conflicts}}
		out.Outcome = PullProposed
	}
	return nil
}

// Push outcomes.
const (
	PushUpToDate = "up_to_date"
	PushPushed   = "pushed"
)

// PushResult is what a push did.
type PushResult struct {
	Outcome string
	Branch  string
	// OldHead is the remote's head before (nil: the branch was new there);
	// NewHead after.
	OldHead *string
	NewHead string
	Stored  remote.Counts
}

// Push sends the remote what it lacks of a branch and moves the remote's
// branch by fast-forward only — a compare-and-swap on the head this copy
// saw there. A remote that moved answers ECONFLICT naming both heads and
// the pull to run first. A retried push stores nothing twice.
func (a *App) Push(ctx context.Context, space smriti.ID, name, branch string) (*PushResult, error) {
	if branch == "" {
		branch = smriti.MainBranch
	}
	r, err := a.store.Remote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	peer, err := a.peer(r)
	if err != nil {
		return nil, err
	}
	local, err := a.store.LatestCheckpoints(ctx, space, branch, 1)
	if err != nil {
		return nil, err
	}
	if len(local) == 0 {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "branch %s has no checkpoint to push", branch)
	}
	head := local[0]
	theirs, _, err := peer.Refs(ctx, r.RemoteSpaceID)
	if err != nil {
		return nil, peerError(r, err)
	}
	var old *remote.Head
	for i := range theirs {
		if theirs[i].Branch == branch {
			old = &theirs[i]
		}
	}
	out := &PushResult{Outcome: PushPushed, Branch: branch, NewHead: head.Hash}
	want := remote.Want{Haves: []string{}, Branches: []string{branch}, Since: r.PushCursor}
	if old != nil {
		h := old.Hash
		out.OldHead = &h
		if old.Hash == head.Hash {
			out.Outcome = PushUpToDate
			return out, a.store.SetRemoteHeads(ctx, space, name, []remote.Head{{Branch: branch, CheckpointID: head.ID, Hash: head.Hash}}, nil, nil)
		}
		lca, err := a.store.CommonAncestor(ctx, head.ID, old.CheckpointID)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			lca, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		if lca == nil || lca.ID != old.CheckpointID {
			return nil, remote.MovedError(branch, out.OldHead, a.trackedHash(r, branch), name)
		}
		want.Haves = append(want.Haves, old.Hash)
	}
	for _, h := range r.Heads {
		if h.Branch != branch && len(want.Haves) < remote.MaxHaves {
			want.Haves = append(want.Haves, h.Hash)
		}
	}
	// The records are written to a spool file first: the export reads one
	// snapshot, and the push's body can then be sent again by the peer.
	spool, err := os.CreateTemp("", "smriti-push-*")
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sw, err := portability.NewSyncWriter(spool)
	if err != nil {
		return nil, err
	}
	cw := &cursorWriter{w: sw}
	if err := a.store.SyncExport(ctx, space, want, cw); err != nil {
		return nil, err
	}
	if err := sw.Close(); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	push := remote.Push{Branch: branch, Head: head.Hash}
	if old != nil {
		push.Expect = out.OldHead
	}
	stored, err := peer.Push(ctx, r.RemoteSpaceID, push, spool)
	if err != nil {
		var e *smriti.Error
		if errors.As(err, &e) && e.Code == smriti.ECONFLICT {
			if m, ok := e.Data.(map[string]any); ok {
				var theirs *string
				if h, ok := m["remote_head"].(string); ok {
					theirs = &h
				}
				return nil, remote.MovedError(branch, theirs, out.OldHead, name)
			}
		}
		return nil, peerError(r, err)
	}
	out.Stored = stored
	if err := a.store.SetRemoteHeads(ctx, space, name, []remote.Head{{Branch: branch, CheckpointID: head.ID, Hash: head.Hash}}, nil, &cw.cursor); err != nil {
		return nil, err
	}
	return out, nil
}

func (a *App) trackedHash(r *remote.Remote, branch string) *string {
	for _, h := range r.Heads {
		if h.Branch == branch {
			hash := h.Hash
			return &hash
		}
	}
	return nil
}

// cursorWriter passes records on and keeps the sync_end record's cursor.
type cursorWriter struct {
	w      records.Writer
	cursor int64
}

func (c *cursorWriter) Write(rec records.BundleRecord) error {
	if rec.SyncEnd != nil {
		c.cursor = rec.SyncEnd.Cursor
	}
	return c.w.Write(rec)
}

// CloneRequest asks for a local exact copy of a space on another server.
type CloneRequest struct {
	URL     string
	Token   string
	SpaceID smriti.ID
	// Name is the remote's name here ("" is origin).
	Name string
}

// Clone makes this server's exact copy of a space on another server —
// same ids and hashes, private sessions excepted — and records the other
// server as a remote with its heads. The bundle streams through a spool
// file, so memory stays bounded. ECONFLICT when the space exists here.
func (a *App) Clone(ctx context.Context, in CloneRequest) (*smriti.Space, error) {
	if in.Name == "" {
		in.Name = "origin"
	}
	probe := remote.Create{Name: in.Name, URL: in.URL, Token: in.Token}
	if err := probe.Validate(); err != nil {
		return nil, err
	}
	if a.dial == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "this server cannot reach other servers")
	}
	peer := a.dial(remote.NormalizeURL(in.URL), in.Token)
	named := &remote.Remote{Name: in.Name, URL: remote.NormalizeURL(in.URL)}
	_, cursor, err := peer.Refs(ctx, in.SpaceID)
	if err != nil {
		return nil, peerError(named, err)
	}
	body, err := peer.Export(ctx, in.SpaceID)
	if err != nil {
		return nil, peerError(named, err)
	}
	spool, err := os.CreateTemp("", "smriti-clone-*")
	if err != nil {
		body.Close()
		return nil, fmt.Errorf("clone: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	_, err = io.Copy(spool, body)
	body.Close()
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, "the clone's transfer was cut off (%v); nothing was written, run it again", err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	sp, err := portability.ImportSpace(ctx, a.store, spool, false)
	if err != nil {
		return nil, err
	}
	id := in.SpaceID
	if _, err := a.store.AddRemote(ctx, remote.Create{SpaceID: sp.ID, Name: in.Name, URL: in.URL, RemoteSpaceID: &id, Token: in.Token}); err != nil {
		return nil, err
	}
	heads, local, err := a.store.SyncHeads(ctx, sp.ID)
	if err != nil {
		return nil, err
	}
	if err := a.store.SetRemoteHeads(ctx, sp.ID, in.Name, heads, &cursor, &local); err != nil {
		return nil, err
	}
	return sp, nil
}
