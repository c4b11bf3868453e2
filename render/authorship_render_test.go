package render

import (
	"smriti"
	"strings"
	"testing"
)

// TestMergeStoredWithTheLocalUserIDIsShownAsLocal: a merge stored with the
// local user's id is shown as local.
func TestMergeStoredWithTheLocalUserIDIsShownAsLocal(t *testing.T) {
	old := smriti.LocalUserID.String()
	c := &smriti.Checkpoint{Hash: strings.Repeat("ab", 32), BranchName: smriti.MainBranch, AuthorAgent: &old, Content: smriti.Content{Message: "Merge"}}
	if out := RenderRestore(&smriti.Space{Name: "S"}, c, CheckpointRenderOptions{}); !strings.Contains(out, "by `local`") || strings.Contains(out, old) {
		t.Fatalf("restore shows the local user as:\n%s", out)
	}
}
