package app_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/proposal"
	"smriti/provider"
	"smriti/store"
	"smriti/store/storetest"
)

// failsRecording is a store whose write recording the accepted proposal's
// checkpoint (the last write of an accept) fails.
type failsRecording struct {
	*store.Store
}

var errRecording = errors.New("disk full")

func (f failsRecording) SetProposalStatus(ctx context.Context, id smriti.ID, from, to string, checkpoint *smriti.ID) (*proposal.Proposal, error) {
	if checkpoint != nil {
		return nil, errRecording
	}
	return f.Store.SetProposalStatus(ctx, id, from, to, checkpoint)
}

// TestAcceptProposalFailingItsLastWriteLeavesNothing: an accept whose last
// write fails stores nothing — no checkpoint on the branch, the proposal
// still pending — and the proposal is then accepted as if the failed
// attempt had never happened.
func TestAcceptProposalFailingItsLastWriteLeavesNothing(t *testing.T) {
	for _, engine := range []struct{ name, dsn string }{{"SQLite", ""}, {"PostgreSQL", "postgres"}} {
		t.Run(engine.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "smriti.db")
			if engine.dsn != "" {
				dsn = storetest.PostgresDSN(t)
			}
			s, err := store.Open(ctx, dsn, nil)
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
			head, err := s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, Content: smriti.Content{Message: "Start", Decisions: []string{"Use Go"}}})
			if err != nil {
				t.Fatal(err)
			}
			good := app.New(app.Config{Store: s, Providers: provider.New(cfg)})
			p, err := good.SaveProposal(ctx, app.ProposalSave{SpaceID: sp.ID, Source: "api",
				Draft: smriti.ProposalDraft{Content: smriti.Content{Message: "Add SQLite", Decisions: []string{"Use Go", "Use SQLite"}}}})
			if err != nil {
				t.Fatal(err)
			}

			failing := app.New(app.Config{Store: failsRecording{s}, Providers: provider.New(cfg)})
			if _, _, err := failing.AcceptProposal(ctx, sp.ID, p.ID, nil); !errors.Is(err, errRecording) {
				t.Fatalf("accept = %v; want the failed write's error", err)
			}
			cps, err := s.LatestCheckpoints(ctx, sp.ID, smriti.MainBranch, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(cps) != 1 || cps[0].ID != head.ID {
				t.Fatalf("main = %d checkpoints, head %s; want only %s: the failed accept committed a checkpoint", len(cps), cps[0].Message, head.Message)
			}
			after, err := good.ShowProposal(ctx, sp.ID, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after.Status != proposal.Pending || after.CheckpointID != nil || after.DecidedAt != nil {
				t.Fatalf("proposal = %s (checkpoint %v, decided %v); want pending, as before the accept", after.Status, after.CheckpointID, after.DecidedAt)
			}

			accepted, cp, err := good.AcceptProposal(ctx, sp.ID, p.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if accepted.Status != proposal.Accepted || accepted.CheckpointID == nil || *accepted.CheckpointID != cp.ID ||
				cp.ParentID == nil || *cp.ParentID != head.ID || cp.Message != "Add SQLite" {
				t.Fatalf("accepted = %s → %v, checkpoint %q on %v; want accepted → the new checkpoint %q on %s",
					accepted.Status, accepted.CheckpointID, cp.Message, cp.ParentID, "Add SQLite", head.ID)
			}
			if _, _, err := good.AcceptProposal(ctx, sp.ID, p.ID, nil); smriti.ErrorCode(err) != smriti.ECONFLICT {
				t.Fatalf("second accept = %v; want ECONFLICT", err)
			}
		})
	}
}
