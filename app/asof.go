package app

import (
	"context"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// maxAsOfLine bounds how many checkpoints of a line of work a state as of
// reads: spans that began before them start at the oldest one read.
const maxAsOfLine = 2000

// AsOfState is the state of a line of work as of one of its checkpoints.
type AsOfState struct {
	Space      *smriti.Space
	Branch     string
	Checkpoint *smriti.Checkpoint
	Items      []smriti.ItemSpan
	// Head is the line's newest checkpoint: an item whose ValidTo is nil
	// is still live there.
	Head *smriti.Checkpoint
}

// StateAsOf answers "what did we hold then?": ref names a checkpoint (id
// or hash prefix; its own branch is the line) or a time (RFC 3339 or a
// date; the newest checkpoint of branch, "" for main, written by then).
// Each live item comes with the checkpoints that began and ended its span
// on that line.
func (a *App) StateAsOf(ctx context.Context, spaceID smriti.ID, ref, branch string) (*AsOfState, error) {
	sp, err := a.store.Space(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(ref) == "" {
		return nil, smriti.Errorf(smriti.EINVALID, "as_of is required: a checkpoint id or hash prefix, or a time")
	}
	var named *smriti.Checkpoint
	if _, isTime := smriti.AsOfTime(ref); !isTime {
		if named, err = a.ResolveCheckpoint(ctx, &spaceID, ref); err != nil {
			return nil, err
		}
		if branch != "" && branch != named.BranchName {
			return nil, smriti.Errorf(smriti.EINVALID, "checkpoint %s is on branch %q, not %q: leave branch out when as_of names a checkpoint", textutil.ShortHash(named.Hash), named.BranchName, branch)
		}
		branch = named.BranchName
	}
	if branch == "" {
		branch = smriti.MainBranch
	}
	heads, err := a.store.LatestCheckpoints(ctx, spaceID, branch, 1)
	if err != nil {
		return nil, err
	}
	if len(heads) == 0 {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "branch %q has no checkpoints", textutil.Truncate(branch, 64))
	}
	line, err := a.store.Ancestors(ctx, heads[0].ID, maxAsOfLine)
	if err != nil {
		return nil, err
	}
	at := -1
	if named != nil {
		for i, c := range line {
			if c.ID == named.ID {
				at = i
			}
		}
		if at < 0 { // written beside the branch's chain: its own chain is its line
			if line, err = a.store.Ancestors(ctx, named.ID, maxAsOfLine); err != nil {
				return nil, err
			}
			at = len(line) - 1
		}
	} else if at, err = smriti.Line(line).Index(ref); err != nil {
		return nil, err
	}
	for _, c := range line {
		if c.Items, err = a.store.CheckpointItems(ctx, c.ID); err != nil {
			return nil, err
		}
	}
	return &AsOfState{Space: sp, Branch: branch, Checkpoint: line[at], Items: smriti.Line(line).StateAt(at), Head: line[len(line)-1]}, nil
}
