package app

import (
	"context"
	"fmt"
	"smriti"
	"smriti/contract"
	"smriti/internal/textutil"
	"smriti/lineage"
	"strings"
)

// MergeRequest asks to merge a source checkpoint (usually a branch head)
// into a target (by default main's head).
type MergeRequest struct {
	SpaceID  smriti.ID
	SourceID smriti.ID
	// TargetID nil means the head of main.
	TargetID    *smriti.ID
	Resolutions []smriti.MergeResolution
	// DryRun previews the merge without writing anything.
	DryRun bool
	// Message is the merge checkpoint's title; "" gives
	// "Merge <source branch> into <target branch>".
	Message     string
	AuthorAgent *string
}

// Validate checks the message (at most smriti.MaxCheckpointMessageChars) and the
// number of resolutions (at most smriti.MaxListItems). EUNPROCESSABLE otherwise.
func (r *MergeRequest) Validate() error {
	if textutil.RuneLen(r.Message) > smriti.MaxCheckpointMessageChars {
		return smriti.TooLong("message", smriti.MaxCheckpointMessageChars)
	}
	if len(r.Resolutions) > smriti.MaxListItems {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "resolutions has %d items; at most %d are allowed", len(r.Resolutions), smriti.MaxListItems)
	}
	return nil
}

// MergeOutcome is a previewed or committed merge.
type MergeOutcome struct {
	Source, Target *smriti.Checkpoint
	// Base is the lowest common ancestor (nil for unrelated histories,
	// which merge against empty content).
	Base *smriti.Checkpoint
	// Merged is the content the merge checkpoint has (or would have).
	Merged smriti.Content
	// Conflicts are those the resolutions left open (never nil). A commit
	// never has any: it fails instead.
	Conflicts []smriti.MergeConflict
	// Resolved counts the conflicts the resolutions settled.
	Resolved int
	// Removes lists every base item the merged state no longer has (never
	// nil): a merge never deletes silently.
	Removes []smriti.MergeRemoval
	// Items are the merged items (ids kept).
	Items []smriti.Item
	// Checkpoint is the merge checkpoint written; nil on a dry run.
	Checkpoint *smriti.Checkpoint
}

// MergeBackend is what a merge needs from storage.
type MergeBackend interface {
	contract.SpaceService
	contract.CheckpointService
	contract.ItemService
	lineage.Service
}

// MergeCheckpoints runs a merge: it finds the base with CommonAncestor,
// merges the target's content (ours) with the source's (theirs) against it,
// applies the resolutions and, unless it is a dry run, writes a checkpoint
// on the target's branch whose parent is the target and whose merge parent
// is the source, marking the source branch integrated in the same write.
//
// Errors: ENOTFOUND for an unknown space or checkpoint; EINVALID for a
// checkpoint of another space; ECONFLICT when there is nothing to merge
// (source and target are the same, or the source is already in the
// target's history), when main has no checkpoint to merge into, when the
// target is not the head of its branch, and — on commit — when conflicts
// are left unresolved, with {"message", "conflicts"} as the error data;
// EUNPROCESSABLE for a resolution that names no conflict.
func MergeCheckpoints(ctx context.Context, b MergeBackend, req MergeRequest) (*MergeOutcome, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := b.Space(ctx, req.SpaceID); err != nil {
		return nil, err
	}
	source, err := checkpointInSpace(ctx, b, req.SpaceID, req.SourceID, "Source")
	if err != nil {
		return nil, err
	}
	target, err := mergeTarget(ctx, b, req)
	if err != nil {
		return nil, err
	}
	if source.ID == target.ID {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Nothing to merge: the source and the target are the same checkpoint")
	}
	base, err := b.CommonAncestor(ctx, target.ID, source.ID)
	if err != nil {
		return nil, err
	}
	if base != nil && base.ID == source.ID {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Nothing to merge: checkpoint %s is already in the history of %s", textutil.ShortHash(source.Hash), textutil.ShortHash(target.Hash))
	}

	// The merge checkpoint gets its own title, so the sides' titles take no
	// part in the merge (they differ on nearly every branch and would
	// otherwise conflict every time).
	untitled := func(c *smriti.Checkpoint) (*smriti.MergeSide, error) {
		if c == nil {
			return nil, nil
		}
		items, err := b.CheckpointItems(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		content := c.Content
		content.Message = ""
		return &smriti.MergeSide{Content: content, Items: items}, nil
	}
	var sides [3]*smriti.MergeSide
	for i, c := range []*smriti.Checkpoint{base, target, source} {
		if sides[i], err = untitled(c); err != nil {
			return nil, err
		}
	}
	resolvedIDs := resolvedItemIDs(req.Resolutions, sides[:])
	for i, head := range []*smriti.Checkpoint{target, source} {
		if sides[i+1].Changes, err = sideChanges(ctx, b, req.SpaceID, head, base, sides[i+1].Items, resolvedIDs); err != nil {
			return nil, err
		}
	}
	res, err := smriti.MergeStates(sides[0], sides[1], sides[2], req.Resolutions)
	if err != nil {
		return nil, err
	}
	merged, open := res.Merged, res.Conflicts
	merged.Message = req.Message
	if merged.Message == "" {
		merged.Message = fmt.Sprintf("Merge %s into %s", source.BranchName, target.BranchName)
	}
	out := &MergeOutcome{Source: source, Target: target, Base: base, Merged: merged, Conflicts: open, Resolved: res.Resolved,
		Removes: res.Removes, Items: res.Items}
	if req.DryRun {
		return out, nil
	}
	if len(open) > 0 {
		msg := fmt.Sprintf("Merge has %d unresolved conflict(s); resolve each (field, key) with ours, theirs, base or custom and retry", len(open))
		return nil, &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: map[string]any{"message": msg, "conflicts": open}}
	}

	author := mergeAuthor(ctx, req.AuthorAgent, out.Resolved)
	in := smriti.CheckpointCreate{
		SpaceID: req.SpaceID, ParentID: &target.ID, MergeParentID: &source.ID, BranchName: target.BranchName, ParentMustBeHead: true,
		AuthorAgent: author.Agent, AuthorType: author.Type, ProjectRoot: target.ProjectRoot, Content: merged, Items: res.Items,
		Metadata: map[string]any{"merge": map[string]any{
			"source_checkpoint_id": source.ID.String(), "target_checkpoint_id": target.ID.String(),
			"base_checkpoint_id": idString(base), "conflicts_resolved": out.Resolved,
		}},
	}
	// Merging main into a branch, or a branch into itself, integrates
	// nothing; merging an older checkpoint of a branch leaves the rest of
	// the branch unmerged, so the branch stays as it is.
	if source.BranchName != smriti.MainBranch && source.BranchName != target.BranchName {
		head, err := b.LatestCheckpoints(ctx, req.SpaceID, source.BranchName, 1)
		if err != nil {
			return nil, err
		}
		if len(head) == 1 && head[0].ID == source.ID {
			in.IntegrateBranch = source.BranchName
		}
	}
	if out.Checkpoint, err = b.CreateCheckpoint(ctx, in); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeTarget is the requested target, or main's head. A target must be the
// head of its branch: a merge checkpoint below the head would fork the
// branch into two lines.
func mergeTarget(ctx context.Context, b MergeBackend, req MergeRequest) (*smriti.Checkpoint, error) {
	if req.TargetID == nil {
		head, err := b.LatestCheckpoints(ctx, req.SpaceID, smriti.MainBranch, 1)
		if err != nil {
			return nil, err
		}
		if len(head) == 0 {
			return nil, smriti.Errorf(smriti.ECONFLICT, "main has no checkpoint to merge into; name a target_checkpoint_id")
		}
		return head[0], nil
	}
	target, err := checkpointInSpace(ctx, b, req.SpaceID, *req.TargetID, "Target")
	if err != nil {
		return nil, err
	}
	head, err := b.LatestCheckpoints(ctx, req.SpaceID, target.BranchName, 1)
	if err != nil {
		return nil, err
	}
	if len(head) == 1 && head[0].ID != target.ID {
		return nil, smriti.Errorf(smriti.ECONFLICT, "Target checkpoint %s is not the head of branch '%s' (the head is %s); merge into the head",
			textutil.ShortHash(target.Hash), target.BranchName, textutil.ShortHash(head[0].Hash))
	}
	return target, nil
}

func checkpointInSpace(ctx context.Context, b contract.CheckpointService, space, id smriti.ID, role string) (*smriti.Checkpoint, error) {
	c, err := b.Checkpoint(ctx, id)
	if smriti.ErrorCode(err) == smriti.ENOTFOUND {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "%s checkpoint not found", role)
	}
	if err != nil {
		return nil, err
	}
	if c.SpaceID != space {
		return nil, smriti.Errorf(smriti.EINVALID, "%s checkpoint does not belong to this space", role)
	}
	return c, nil
}

func idString(c *smriti.Checkpoint) any {
	if c == nil {
		return nil
	}
	return c.ID.String()
}

// resolvedItemIDs are the ids of the items the resolutions name: by id, or
// by the normalised text of an item of one of the sides.
func resolvedItemIDs(res []smriti.MergeResolution, sides []*smriti.MergeSide) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, r := range res {
		if smriti.ValidItemID(r.Key) {
			add(r.Key)
			continue
		}
		for _, sd := range sides {
			if sd == nil {
				continue
			}
			for _, it := range sd.Items {
				if it.Kind.Field() == r.Field && smriti.ItemKey(it.Text) == r.Key {
					add(it.ID)
				}
			}
		}
	}
	return ids
}

// sideChanges finds, for each of ids that the side's head does not change
// itself, the change that last changed the item on that side since the
// base: the newest change in the item's history made by head or an
// ancestor of it that is neither base nor an ancestor of base. The merge
// records the chosen side's source from it (smriti.MergeSide.Changes).
func sideChanges(ctx context.Context, b MergeBackend, space smriti.ID, head, base *smriti.Checkpoint, headItems []smriti.Item, ids []string) (map[string]*smriti.ItemChange, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	own := map[string]bool{}
	for _, it := range headItems {
		if it.Change != nil && it.Change.Op != "" {
			own[it.ID] = true
		}
	}
	ancestor := func(a, of smriti.ID) (bool, error) {
		if a == of {
			return true, nil
		}
		lca, err := b.CommonAncestor(ctx, a, of)
		return err == nil && lca != nil && lca.ID == a, err
	}
	out := map[string]*smriti.ItemChange{}
	for _, id := range ids {
		if own[id] {
			continue
		}
		evs, err := b.ItemHistory(ctx, space, id)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := len(evs) - 1; i >= 0; i-- {
			ev := &evs[i]
			if ev.Rejected || ev.Item.ID != id || ev.Item.Change == nil {
				continue
			}
			onSide, err := ancestor(ev.CheckpointID, head.ID)
			if err != nil {
				return nil, err
			}
			if !onSide {
				continue
			}
			if base != nil {
				inBase, err := ancestor(ev.CheckpointID, base.ID)
				if err != nil {
					return nil, err
				}
				if inBase {
					continue
				}
			}
			out[id] = ev.Item.Change
			break
		}
	}
	return out, nil
}

// Merge previews or commits a merge (see MergeCheckpoints).
func (a *App) Merge(ctx context.Context, in MergeRequest) (*MergeOutcome, error) {
	return MergeCheckpoints(ctx, a.store, in)
}

// mergeAuthor attributes a merge checkpoint to whoever merged. An agent the
// request names is the author ("agent"). Otherwise the caller is named by
// their user id (the local user by its name, "local"): as "user" when they settled conflicts (they wrote part of
// the result), as "system" when the merge combined the two sides by
// itself.
func mergeAuthor(ctx context.Context, authorAgent *string, resolvedConflicts int) smriti.Author {
	if authorAgent != nil {
		if a := strings.TrimSpace(*authorAgent); a != "" {
			return smriti.Author{Type: smriti.AuthorAgent, Agent: &a}
		}
	}
	who := smriti.UserFromContext(ctx).String()
	if smriti.UserFromContext(ctx) == smriti.LocalUserID {
		who = smriti.LocalUsername
	}
	if resolvedConflicts > 0 {
		return smriti.Author{Type: smriti.AuthorUser, Agent: &who}
	}
	return smriti.Author{Type: smriti.AuthorSystem, Agent: &who}
}
