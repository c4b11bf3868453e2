package render

import (
	"context"
	"smriti"
	"strings"
	"testing"
)

// TestMergeByTheLocalUserIsNamedLocal: a merge by the local user is signed
// "local", not its id; and a merge stored with the id is shown as local.
func TestMergeByTheLocalUserIsNamedLocal(t *testing.T) {
	got := smriti.MergeAuthor(context.Background(), nil, 0)
	if got.Type != smriti.AuthorSystem || got.Agent == nil || *got.Agent != "local" {
		t.Fatalf("local merge author = %s/%v, want system/local", got.Type, got.Agent)
	}
	old := smriti.LocalUserID.String()
	c := &smriti.Checkpoint{Hash: strings.Repeat("ab", 32), BranchName: smriti.MainBranch, AuthorAgent: &old, Content: smriti.Content{Message: "Merge"}}
	if out := RenderRestore(&smriti.Space{Name: "S"}, c, CheckpointRenderOptions{}); !strings.Contains(out, "by `local`") || strings.Contains(out, old) {
		t.Fatalf("restore shows the local user as:\n%s", out)
	}
}
