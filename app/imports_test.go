package app_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/portability"
	"smriti/provider"
	"smriti/store"
)

// commitsAfter is a store that lands another writer's checkpoint just
// before the first commit it is asked for: a save made on the branch while
// the import's draft was being written.
type commitsAfter struct {
	*store.Store
	once  sync.Once
	other smriti.CheckpointCommit
	err   error
}

func (c *commitsAfter) CommitCheckpoint(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	c.once.Do(func() { _, c.err = c.Store.CommitCheckpoint(ctx, c.other) })
	return c.Store.CommitCheckpoint(ctx, in)
}

// importWithSaveBetween imports transcript with a draft into a fresh space
// whose head holds base, other being saved between the draft and its save.
func importWithSaveBetween(t *testing.T, base, other smriti.Content, transcript string) (*store.Store, smriti.ID, []portability.ImportedConversation) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, Content: base}); err != nil {
		t.Fatal(err)
	}
	cps := &commitsAfter{Store: s, other: smriti.CheckpointCommit{SpaceID: sp.ID, Content: other}}
	a := app.New(app.Config{Store: cps, Providers: provider.New(cfg)})
	res, err := a.ImportTranscripts(ctx, strings.NewReader(transcript), portability.TranscriptImport{SpaceID: sp.ID, Filename: "notes.md", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if cps.err != nil {
		t.Fatal(cps.err)
	}
	return s, sp.ID, res
}

// TestImportDraftConflictSaysWhatNext: when the save made meanwhile
// changed the item the draft changes, nothing is saved for the
// conversation, and its report says the turns stay unsaved and what to do.
func TestImportDraftConflictSaysWhatNext(t *testing.T) {
	base := smriti.Content{Message: "Auth plan", Decisions: []string{"Access token TTL is 15 minutes"}}
	other := smriti.Content{Message: "Short TTL", Decisions: []string{"Access token TTL is 5 minutes"}}
	s, space, res := importWithSaveBetween(t, base, other, "User: Decision: access token TTL is 30 minutes.\n\nAssistant: Noted.\n")
	head, err := s.LatestCheckpoints(context.Background(), space, smriti.MainBranch, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].CheckpointID != nil || res[0].Error == nil || res[0].SessionID == nil {
		t.Fatalf("import = %+v; want the conversation imported with no checkpoint and an error", res)
	}
	want := "imported, but the drafted checkpoint was not saved: a checkpoint saved meanwhile (" + head[0].ID.String() +
		") changed 1 of the same item(s); the session's turns stay unsaved — draft session " + res[0].SessionID.String() + " again to build on the new head"
	if *res[0].Error != want {
		t.Fatalf("error = %q\nwant    %q", *res[0].Error, want)
	}
	if head[0].Content.Message != "Short TTL" {
		t.Fatalf("head = %q; want the other writer's checkpoint, nothing saved over it", head[0].Content.Message)
	}
}

// TestImportDraftKeepsASaveMadeWhileDrafting: `import --draft` commits its
// draft as a change over the head it drafted on, so a checkpoint another
// writer saved meanwhile is kept (the import used to save the draft as the
// whole state, dropping that writer's decision).
func TestImportDraftKeepsASaveMadeWhileDrafting(t *testing.T) {
	base := smriti.Content{Message: "Auth plan", Decisions: []string{"Access token TTL is 15 minutes", "Use cobra for the flags"}}
	other := base
	other.Message = "Web UI"
	other.Decisions = append(slices.Clone(base.Decisions), "Serve the web UI from the binary")
	s, space, res := importWithSaveBetween(t, base, other, "User: Decision: ship a Homebrew formula.\n\nAssistant: Noted.\n")
	if len(res) != 1 || res[0].CheckpointID == nil || res[0].Error != nil {
		t.Fatalf("import = %+v; want one conversation with a drafted checkpoint", res)
	}
	head, err := s.LatestCheckpoints(context.Background(), space, smriti.MainBranch, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Access token TTL is 15 minutes", "Use cobra for the flags", "Serve the web UI from the binary", "Ship a Homebrew formula"}
	if len(head) != 1 || head[0].ID != *res[0].CheckpointID || !slices.Equal(head[0].Content.Decisions, want) {
		t.Fatalf("head = %+v; want the drafted checkpoint with decisions %q", head[0].Content, want)
	}
}

// TestImportDraftIsAuthoredByTheDraftingModel: a checkpoint drafted from an
// imported conversation was written by the model that drafted it, so it is
// attributed to "llm" with that model as its agent, as any drafted save is
// (it was saved as the user's, with no agent).
func TestImportDraftIsAuthoredByTheDraftingModel(t *testing.T) {
	base := smriti.Content{Message: "Auth plan", Decisions: []string{"Access token TTL is 15 minutes"}}
	other := smriti.Content{Message: "Web UI", Decisions: []string{"Access token TTL is 15 minutes", "Serve the web UI from the binary"}}
	s, _, res := importWithSaveBetween(t, base, other, "User: Decision: ship a Homebrew formula.\n\nAssistant: Noted.\n")
	if len(res) != 1 || res[0].CheckpointID == nil {
		t.Fatalf("import = %+v; want one conversation with a drafted checkpoint", res)
	}
	cp, err := s.Checkpoint(context.Background(), *res[0].CheckpointID)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, model, err := provider.New(cfg).Background()
	if err != nil || model == "" {
		t.Fatalf("background model = %q, %v; want the configured drafting model", model, err)
	}
	if cp.AuthorType != smriti.AuthorLLM || cp.AuthorAgent == nil || *cp.AuthorAgent != model {
		t.Fatalf("author = %q / %v; want %q / %q", cp.AuthorType, cp.AuthorAgent, smriti.AuthorLLM, model)
	}
}
