package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"smriti"
)

// TestJustWrittenReadsAsTheRows: the items a write transaction keeps of the
// checkpoint it wrote last are what reading them back from their rows
// gives — statuses, supersedes, changes, origins and task annotations —
// for checkpoints with tasks (annotated, done, dropped), superseded and
// retracted items, and items a client proposed with origins and quotes.
func TestJustWrittenReadsAsTheRows(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	se, err := s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	quote, model, agent := "we said so", "mock-1", "agent-7"
	var from, to int64 = 0, 0
	commits := []smriti.CheckpointCommit{
		{Content: smriti.Content{Message: "one", Decisions: []string{"Use Go", "Budget is 40k"}, Assumptions: []string{"Users are on Linux"},
			Tasks: []smriti.Task{{Text: "Write the importer", ID: "imp", IntentHint: "build", BlockedBy: smriti.Blockers{"x"}},
				{Text: "Fix login", Status: "done", Structured: true}, {Text: "Plain"}},
			OpenQuestions: []string{"Which region?"}, Entities: []string{"Redis"}}},
		{AuthorAgent: &agent, Model: &model, Content: smriti.Content{Message: "two", Decisions: []string{"Use Go", "Budget is 50k", "Ship on Fridays"},
			Tasks:         []smriti.Task{{Text: "Write the importer", ID: "imp", IntentHint: "build", BlockedBy: smriti.Blockers{"x", "y"}}, {Text: "Fix login", Status: "done"}},
			OpenQuestions: []string{}, Entities: []string{"Redis", "Postgres"}},
			Items: []smriti.Item{{Kind: smriti.KindDecision, Text: "Ship on Fridays", Origin: smriti.ItemOrigin{Quote: &quote, FromSeq: &from, ToSeq: &to}},
				{Kind: smriti.KindEntity, Text: "Postgres", Supersedes: []string{"e-000000"}}}},
		{Content: smriti.Content{Message: "three"}},
	}
	for i, in := range commits {
		in.SpaceID, in.SessionID = sp.ID, se.ID
		c, err := s.CommitCheckpoint(ctx, in)
		if err != nil {
			t.Fatal(i, err)
		}
		err = s.tx(ctx, func(tx *sql.Tx) error {
			rows, err := s.parentItems(ctx, tx, []smriti.ID{c.ID})
			if err != nil {
				return err
			}
			s.wroteItems(tx, c)
			kept, ok := s.justWritten(tx, c.ID)
			if !ok {
				t.Fatalf("commit %d: nothing kept", i)
			}
			if !reflect.DeepEqual(kept, rows[c.ID]) {
				t.Fatalf("commit %d: kept\n%+v\nthe rows read\n%+v", i, kept, rows[c.ID])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
