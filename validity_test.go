package smriti

import "testing"

func TestValidityOf(t *testing.T) {
	ev := func(branch, hash, id, text, status string, rejected bool) ItemEvent {
		return ItemEvent{BranchName: branch, CommitHash: hash, Rejected: rejected, Item: Item{ID: id, Text: text, Status: status}}
	}
	evs := []ItemEvent{
		ev("main", "c1", "d-000001", "use SQLite", ItemOpen, false),
		ev("alt", "b2", "d-000001", "use PostgreSQL", ItemOpen, false),
		ev("main", "c3", "d-000001", "use SQLite, WAL", ItemOpen, false),
		ev("main", "c4", "d-000001", "use Postgres", ItemOpen, true),
		ev("main", "c4", "d-000001", "use SQLite, WAL", ItemOpen, false),
		ev("main", "c5", "d-000002", "use SQLite with WAL and a writer", ItemOpen, false),
	}
	got := ItemHistory(evs).Validity("d-000001")
	type span struct{ text, branch, from, to string }
	want := []span{{"use SQLite", "main", "c1", "c3"}, {"use PostgreSQL", "alt", "b2", ""}, {"use SQLite, WAL", "main", "c3", "c4"}, {"use SQLite, WAL", "main", "c4", "c5"}}
	if len(got) != len(want) {
		t.Fatalf("ValidityOf = %d versions; want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		to := ""
		if g.To != nil {
			to = g.To.CommitHash
		}
		if g.Text != w.text || g.Branch != w.branch || g.From.CommitHash != w.from || to != w.to {
			t.Errorf("version %d = %q on %s from %s to %q; want %+v", i, g.Text, g.Branch, g.From.CommitHash, to, w)
		}
	}
	ended := ItemHistory([]ItemEvent{ev("main", "c1", "q-000001", "why?", ItemOpen, false), ev("main", "c2", "q-000001", "why?", ItemAnswered, false)}).Validity("q-000001")
	if len(ended) != 1 || ended[0].To == nil || ended[0].To.CommitHash != "c2" {
		t.Errorf("an answered question's validity = %+v; want one version ending at c2", ended)
	}
}
