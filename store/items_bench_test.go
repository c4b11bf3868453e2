package store_test

import (
	"fmt"
	"testing"

	"smriti"
)

// BenchmarkCommitItems measures a checkpoint commit on SQLite whose content
// has n items, each commit on top of the previous one (so every commit
// matches all n items to its parent's and writes n item rows). Compare
// items=0 with items=200 for what identity costs a commit.
func BenchmarkCommitItems(b *testing.B) {
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			s, ctx, sp := benchStore(b)
			content := smriti.Content{Message: "bench", Summary: "summary"}
			for i := 0; i < n; i++ {
				content.Decisions = append(content.Decisions, fmt.Sprintf("Decision %d about the storage layer and its limits", i))
			}
			var parent *smriti.ID
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := content
				if n > 0 {
					c.Decisions = append([]string{fmt.Sprint("New decision ", i)}, content.Decisions[1:]...)
				}
				cp, err := s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: parent, BranchName: smriti.MainBranch, Content: c})
				if err != nil {
					b.Fatal(err)
				}
				parent = &cp.ID
			}
		})
	}
}
