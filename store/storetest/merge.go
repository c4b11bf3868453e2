package storetest

import (
	"context"
	"testing"

	"smriti"
	"smriti/store"
)

// MergeCall is a merge of a checkpoint into its space's main head.
type MergeCall struct {
	SpaceID, SourceID smriti.ID
	Resolutions       []smriti.MergeResolution
	DryRun            bool
}

// MergeResult is what a merge wrote (Checkpoint, nil on a dry run), the
// content it has (or would have), and every base item it removes.
type MergeResult struct {
	Checkpoint *smriti.Checkpoint
	Merged     smriti.Content
	Removes    []smriti.MergeRemoval
}

// Merge merges as the App does (app.MergeCheckpoints). The suite is
// handed it by its caller, so that the store's conformance suite does not
// depend on the App.
type Merge func(ctx context.Context, s *store.Store, in MergeCall) (*MergeResult, error)

// RunMerges runs the cases that check what a merge records on the items
// (which side a resolution kept, the edits it rejected, the removals a
// preview lists) on the store open gives, merging with merge.
func RunMerges(t *testing.T, open func(*testing.T) *store.Store, merge Merge) {
	for _, c := range mergeProvenanceCases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t), merge)
		})
	}
}
