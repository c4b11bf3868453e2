package app_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"smriti/provider"
	"smriti/store"
)

// contentReads is a store that counts the reads of checkpoints in full.
type contentReads struct {
	*store.Store
	full atomic.Int64
}

func (c *contentReads) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	c.full.Add(1)
	return c.Store.Checkpoint(ctx, id)
}

func (c *contentReads) LatestCheckpoints(ctx context.Context, space smriti.ID, branch string, n int) ([]*smriti.Checkpoint, error) {
	c.full.Add(1)
	return c.Store.LatestCheckpoints(ctx, space, branch, n)
}

func (c *contentReads) Ancestors(ctx context.Context, id smriti.ID, n int) ([]*smriti.Checkpoint, error) {
	c.full.Add(1)
	return c.Store.Ancestors(ctx, id, n)
}

// Sends on one head read the checkpoint's content once, whichever session
// sends; the prompt and its token count are exactly the ones rendered from
// the checkpoint in full; a new head is read and rendered once more.
func TestSendsReadAHeadCheckpointOnce(t *testing.T) {
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
	cp1, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, Content: smriti.Content{Message: "Plan",
		Summary: "Where we are", Decisions: []string{"Use Go", "Ship weekly"}, Tasks: []smriti.Task{{Text: "Write the docs"}}}})
	if err != nil {
		t.Fatal(err)
	}
	reads := &contentReads{Store: s}
	a := app.New(app.Config{Store: reads, Providers: provider.New(cfg)})
	session := func() *smriti.Session {
		se, err := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "mock", SeedFrom: "none"})
		if err != nil {
			t.Fatal(err)
		}
		return se
	}
	one, two := session(), session()
	const msg = "What next?"
	p, err := a.PreviewContext(ctx, nil, app.SendRequest{SessionID: one.ID, Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.Checkpoint(ctx, cp1.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := intelligence.BuildPrompt([]*smriti.Checkpoint{full}, nil, msg)
	if len(p.Messages) != 2 || p.Messages[0] != want[0] || p.Messages[1] != want[1] {
		t.Fatalf("prompt = %q\nwant %q", p.Messages, want)
	}
	if wantTokens := intelligence.CountMessages(nil, "mock", "mock", want); p.TokenEstimate != wantTokens {
		t.Fatalf("tokens = %d, want %d", p.TokenEstimate, wantTokens)
	}
	if want := (app.PreviewCheckpoint{ID: cp1.ID, Hash: cp1.Hash, Message: "Plan", BranchName: smriti.MainBranch}); len(p.Checkpoints) != 1 || p.Checkpoints[0] != want {
		t.Fatalf("checkpoints = %+v", p.Checkpoints)
	}
	for _, se := range []*smriti.Session{one, two, one} {
		if _, err := a.Send(ctx, app.SendRequest{SessionID: se.ID, Message: msg}); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.full.Load(); n != 1 {
		t.Fatalf("the head checkpoint was read in full %d times over a preview and three sends, want 1", n)
	}
	cp2, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: one.ID, Content: smriti.Content{Message: "Plan 2",
		Decisions: []string{"Use Go"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Send(ctx, app.SendRequest{SessionID: two.ID, Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Exchange.Assistant.Content, "checkpoints="+textutil.ShortHash(cp2.Hash)) {
		t.Fatalf("reply after a new head = %q, want it built on %s", res.Exchange.Assistant.Content, textutil.ShortHash(cp2.Hash))
	}
	if n := reads.full.Load(); n != 2 {
		t.Fatalf("checkpoints read in full = %d after a new head, want 2", n)
	}
}
