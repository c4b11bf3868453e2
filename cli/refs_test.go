package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/wire"
)

// A draft saved by a hook cites what the text of the items it adds names
// in the agent's work tree; items it carries or changes keep theirs.
func TestCiteDraftResolvesTheItemsItAdds(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "retry.go"), []byte("package app\n\nfunc Retry() int {\n\treturn 7\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	items := []wire.ItemIn{
		{Kind: "decision", Text: "Retry 7 times in `app.Retry`", Change: &smriti.ItemChange{Op: smriti.OpAdd}},
		{ID: "d-00aa11", Kind: "decision", Text: "Keep app/retry.go:4 as is", Change: &smriti.ItemChange{Op: smriti.OpUpdate}},
		{Kind: "task", Text: "Look at app/missing.go:3"},
	}
	got := citeDraft(context.Background(), dir, items)
	if len(got[0].Refs) != 1 || got[0].Refs[0].String() != "app/retry.go#app.Retry:3-5" || got[0].Refs[0].Validate() != nil {
		t.Errorf("added item's refs = %+v", got[0].Refs)
	}
	if len(got[1].Refs) != 0 || len(got[2].Refs) != 0 {
		t.Errorf("an updated item or a missing file got refs: %+v / %+v", got[1].Refs, got[2].Refs)
	}
	if len(items[0].Refs) != 0 {
		t.Errorf("citeDraft changed its input")
	}
	if out := citeDraft(context.Background(), t.TempDir(), items); len(out[0].Refs) != 0 {
		t.Errorf("outside a work tree: %+v", out[0].Refs)
	}
}
