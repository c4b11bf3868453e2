package app

import (
	"context"
	"fmt"

	"smriti"
	"smriti/internal/textutil"
	"smriti/proposal"
	"smriti/remote"
)

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
	Proposal *proposal.Proposal
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
					return nil, smriti.Errorf(smriti.ECONFLICT, "%s/%s is stored here on another line than %s; merge it with `smriti merge %s`", in.Remote, branch, branch, textutil.ShortHash(tracked.Hash))
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
	author := mergeAuthor(ctx, nil, merged.Resolved)
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
		out.Proposal = &proposal.Proposal{Draft: smriti.ProposalDraft{Content: draft, Items: other.Items, AuthorType: author.Type,
			AuthorAgent: author.Agent, ProjectRoot: head.ProjectRoot, Conflicts: first.Conflicts}}
		out.Outcome = PullProposed
	}
	return nil
}
