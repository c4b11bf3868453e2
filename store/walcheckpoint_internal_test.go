package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"smriti/contract"
	"smriti/internal/estimate"
	"testing"
	"time"

	"smriti"
)

// TestCheckpointsRunBesideWrites writes the same sends into two SQLite
// stores, one with the background checkpointer stopped (SQLite's backstop
// alone, as a log of 10,000 pages is never reached here): with it, the
// log is checkpointed and restarted while the writes go on, so it stays under
// half the size it reaches without. The writes pause every 50 sends
// until a checkpoint has run.
func TestCheckpointsRunBesideWrites(t *testing.T) {
	walAfter := func(t *testing.T, background bool) (int64, int64) {
		ctx := smriti.WithUser(context.Background(), smriti.NewID())
		path := filepath.Join(t.TempDir(), "s.db")
		s, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !background {
			s.ckpt.Stop()
		}
		se, err := s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 400 {
			msg := fmt.Sprintf("message %d with enough words to fill a few rows of the full-text index", i)
			if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
				User:      contract.TurnWrite{Content: msg, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(msg)},
				Assistant: contract.TurnWrite{Content: "reply " + msg, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(msg) + 1}}); err != nil {
				t.Fatal(err)
			}
			if background && i%50 == 49 {
				// Wait for the checkpoint these writes asked for, as the
				// gaps between a real client's sends would allow.
				want := s.ckpt.Runs() + 1
				deadline := time.Now().Add(10 * time.Second)
				for s.ckpt.Runs() < want {
					if time.Now().After(deadline) {
						t.Fatalf("no checkpoint within 10 s of send %d", i)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
		}
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size(), s.ckpt.Runs()
	}
	without, runsWithout := walAfter(t, false)
	with, runs := walAfter(t, true)
	t.Logf("log after 400 sends: %d bytes with the checkpointer (%d checkpoints), %d without", with, runs, without)
	if runsWithout != 0 {
		t.Fatalf("a stopped checkpointer ran %d checkpoints", runsWithout)
	}
	if with*2 > without {
		t.Fatalf("log is %d bytes with the checkpointer, %d without: want under half", with, without)
	}
}
