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

// Push outcomes.
const (
	PushUpToDate = "up_to_date"
	PushPushed   = "pushed"
	PushProposed = "proposed"
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
	// Proposal is the proposal a push --propose left on the remote.
	Proposal *smriti.ID
}

// Push sends the remote what it lacks of a branch and moves the remote's
// branch by fast-forward only — a compare-and-swap on the head this copy
// saw there. A remote that moved answers ECONFLICT naming both heads and
// the pull to run first. A retried push stores nothing twice.
func (a *App) Push(ctx context.Context, space smriti.ID, name, branch string) (*PushResult, error) {
	return a.push(ctx, space, name, branch, false)
}

// PushProposal lands a branch's state on a remote as a pending proposal
// (a pull request for reasoning state): nothing on the remote moves until
// someone there accepts it, which rebases it by item id if need be. The
// proposal is written against the newest checkpoint both copies hold; a
// private session's quotes are withheld from its items.
func (a *App) PushProposal(ctx context.Context, space smriti.ID, name, branch string) (*PushResult, error) {
	return a.push(ctx, space, name, branch, true)
}

func (a *App) push(ctx context.Context, space smriti.ID, name, branch string, propose bool) (*PushResult, error) {
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
		if propose {
			return a.proposeOn(ctx, peer, r, head, old, out)
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
	if propose {
		return a.proposeOn(ctx, peer, r, head, nil, out)
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
	if err := a.store.SyncExport(ctx, space, want, a.exitGuard(ctx, space, "push", cw)); err != nil {
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

// proposeOn saves head's state on the remote as a proposal written against
// the newest checkpoint both copies hold (the remote's head when this copy
// has it in its history; else the common ancestor with it or with the
// remote-tracking head).
func (a *App) proposeOn(ctx context.Context, peer remote.Peer, r *remote.Remote, head *smriti.Checkpoint, old *remote.Head, out *PushResult) (*PushResult, error) {
	var base *smriti.ID
	for _, cand := range []*remote.Head{old, headOf(r, out.Branch)} {
		if cand == nil {
			continue
		}
		lca, err := a.store.CommonAncestor(ctx, head.ID, cand.CheckpointID)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, err
		}
		if lca != nil {
			base = &lca.ID
			break
		}
	}
	if old != nil && base == nil {
		return nil, smriti.Errorf(smriti.ECONFLICT, "this copy holds nothing of %s/%s's history; run `smriti pull %s` first", r.Name, out.Branch, r.Name)
	}
	items, err := a.store.CheckpointItems(ctx, head.ID)
	if err != nil {
		return nil, err
	}
	private := map[smriti.ID]bool{}
	live := make([]smriti.Item, 0, len(items))
	for _, it := range items {
		if !it.Live() {
			continue
		}
		if s := it.Origin.SessionID; s != nil {
			p, ok := private[*s]
			if !ok {
				p, _ = a.store.SessionPrivate(ctx, *s)
				private[*s] = p
			}
			if p {
				it.Origin.Quote = nil
			}
		}
		it.Change = nil
		live = append(live, it)
	}
	content := head.Content
	draft := smriti.ProposalDraft{Content: content, Items: live, AuthorType: head.AuthorType, AuthorAgent: head.AuthorAgent, ProjectRoot: head.ProjectRoot}
	id, err := peer.Propose(ctx, r.RemoteSpaceID, base, draft)
	if err != nil {
		return nil, peerError(r, err)
	}
	out.Outcome, out.Proposal = PushProposed, &id
	return out, nil
}

func headOf(r *remote.Remote, branch string) *remote.Head {
	for i := range r.Heads {
		if r.Heads[i].Branch == branch {
			return &r.Heads[i]
		}
	}
	return nil
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
