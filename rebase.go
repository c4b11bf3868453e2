package smriti

// No lost update: a write of state names the checkpoint it was written
// against (its base). When the branch head has moved past the base, the
// write's change — from the base to what it proposes — is applied onto the
// head by item id instead of replacing the head's state: what the other
// writers added stays, what they ended stays ended, and an item both
// changed is a conflict the writer resolves.

// RebaseChange applies the change from base to proposed onto head. base
// and head are checkpoints' content and items (tombstones included);
// proposed is the content the writer saves, with the items it proposed as
// hints (ids, supersedes, origins; may be nil: ids then follow
// AssignItems' matching against base, near copies included).
//
// Items are three-way merged by id as MergeStates does, with head as
// "ours" and the proposed change as "theirs": disjoint changes both
// survive; the same item changed differently on both sides, or changed on
// one and ended on the other, is a conflict. The title is always the
// proposed one (a checkpoint's title names its own change); objective and
// summary take the proposed value when the writer changed it from the
// base, else the head's — they never conflict, as the writer saw the
// base's and wrote the newer account. Artifacts merge by id, else label.
//
// Resolutions settle conflicts as in MergeStates ("ours" is the head's
// value, "theirs" the writer's). The result's Items are the rebased state
// (new items keep the proposed origin), its Conflicts what is still open.
func RebaseChange(base, head *MergeSide, proposed *Content, hints []Item, resolutions []MergeResolution) (MergeResult, error) {
	if base == nil {
		base = &MergeSide{}
	}
	if head == nil {
		head = &MergeSide{}
	}
	m := &merger{res: map[conflictRef]MergeResolution{}, used: map[conflictRef]bool{}, conflicts: []MergeConflict{}}
	if err := m.setResolutions(resolutions); err != nil {
		return MergeResult{}, err
	}
	baseItems := sideItems(base)
	mine := AssignItems(proposed, baseItems, hints, ItemOrigin{})

	var out Content
	out.Message = proposed.Message
	out.Objective = rebaseScalar(base.Content.Objective, head.Content.Objective, proposed.Objective)
	out.Summary = rebaseScalar(base.Content.Summary, head.Content.Summary, proposed.Summary)
	items, removes := m.mergeItems(baseItems, adoptNearCopies(baseItems, sideItems(head)), mine)
	setContentLists(&out, items)
	out.Artifacts = m.mergeArtifacts(base.Content.Artifacts, head.Content.Artifacts, proposed.Artifacts)
	if err := m.unusedResolution(); err != nil {
		return MergeResult{}, err
	}
	return MergeResult{Merged: out, Items: items, Conflicts: m.conflicts, Removes: removes, Resolved: len(m.used)}, nil
}

// rebaseScalar is the writer's value when it changed it from the base,
// else the head's.
func rebaseScalar(base, head, mine string) string {
	if mine != base {
		return mine
	}
	return head
}
