package storetest

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/portability"
	"smriti/search"
	"smriti/secretlog"
	"smriti/secrets"
	"smriti/store"
)

var purgeCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"PurgeRemovesASecretEverywhereAndKeepsTheChainVerifiable", testPurge},
	{"PurgedCheckpointsTravelInABundleAndStillVerify", testPurgedBundle},
	{"PurgeLeavesNoCopyInTheDatabaseFiles", testPurgeErasesFiles},
}

func testPurgedBundle(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "Setup", "Use Go", "token "+purgeSecret)
	b := commit(t, ctx, s, sp, se, "Next", "Use Go", "token "+purgeSecret, "Ship weekly")
	Get(s.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "ana", Find: ruleFinder("github-pat")})).Must(t)
	bundle := exportBytes(t, ctx, s, sp.ID)
	if strings.Contains(string(bundle), purgeFragment) {
		t.Fatal("the bundle holds the purged key")
	}
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	for _, asNew := range []bool{false, true} {
		other := userCtx()
		got := Get(portability.ImportSpace(other, s, bytes.NewReader(bundle), asNew)).Must(t)
		head := b.ID
		if asNew {
			cps := Get(s.LatestCheckpoints(other, got.ID, smriti.MainBranch, 1)).Must(t)
			head = cps[0].ID
		}
		v := Get(s.VerifyCheckpoint(other, head)).Must(t)
		// Each checkpoint: the decision, and the item that carries it.
		if !v.OK || v.Checked != 2 || len(v.Purged) != 4 {
			t.Fatalf("imported (as new: %v): %+v", asNew, v)
		}
		for _, p := range v.Purged {
			if !p.Proven || p.Field != "decisions[1]" && !strings.HasPrefix(p.Field, "items[d-") || p.By != "ana" {
				t.Fatalf("imported (as new: %v): purged field %+v", asNew, p)
			}
		}
		if !asNew {
			if back := Get(s.Checkpoint(other, a.ID)).Must(t); back.Hash != a.Hash {
				t.Fatalf("hash after import %s, want %s", back.Hash, a.Hash)
			}
			if err := s.DeleteSpace(other, got.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// purgeSecret is a GitHub token in the format the detector knows, and its
// longest run of letters and digits (what a full-text index keeps of it).
const (
	purgeSecret   = "ghp_R8x2Kq9LmZ4vT7wN1pY6sB3dF5hJ0cG2aE4u"
	purgeFragment = "R8x2Kq9LmZ4vT7wN1pY6sB3dF5hJ0cG2aE4u"
	// otherSecret is another space's token of the same rule.
	otherSecret = "ghp_Z0b7Yt3Wq6Lk2Rm9Nv4Hx8Jc1Pd5Gs3Fa7Eu2"
)

// ruleFinder finds the values of one rule, as the purge use case does.
func ruleFinder(rule string) func(string) []secretlog.SecretMatch {
	return func(text string) []secretlog.SecretMatch {
		var out []secretlog.SecretMatch
		for _, f := range secrets.Find(text) {
			if f.Rule == rule {
				out = append(out, secretlog.SecretMatch{Value: text[f.Start:f.End], Rule: f.Rule, Replacement: secrets.Marker(f.Rule)})
			}
		}
		return out
	}
}

func testPurge(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	withKey := "deploy with GITHUB_TOKEN=" + purgeSecret + " tonight"
	Get(s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User:      contract.TurnWrite{Content: withKey, Provider: "mock", Model: "m"},
		Assistant: contract.TurnWrite{Content: "ok", Provider: "mock", Model: "m", Metadata: map[string]any{"context": map[string]any{"quote": withKey}}}})).Must(t)
	send(t, ctx, s, se, "an ordinary message")
	Get(s.SetSessionTitle(ctx, se.ID, "Token "+purgeSecret)).Must(t)
	// A line of three: the first as an older version wrote it (hash version
	// 2), holding the key in its summary; the second holds it in a decision
	// (and so in an item) and an artifact; the third carries the item on.
	a := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "Setup", Summary: withKey, Decisions: []string{"Use Go"}}})).Must(t)
	b := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "Deploy", Summary: "where things stand", Decisions: []string{"Use Go", withKey},
			Artifacts: []smriti.Artifact{{ID: "a1", Label: "env", Content: "GITHUB_TOKEN=" + purgeSecret}}}})).Must(t)
	c := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
		Content: smriti.Content{Message: "Later", Summary: "more", Decisions: []string{"Use Go", withKey, "Ship weekly"}}})).Must(t)
	rehashLine(t, ctx, s, []int{2, smriti.CurrentHashVersion, smriti.CurrentHashVersion}, a, b, c)
	Get(s.AddNote(ctx, b.ID, smriti.NoteCreate{Author: "ana", Text: "rotated " + purgeSecret, Kind: "note"})).Must(t)
	claim := claimIn(sp)
	claim.Scope = "Rotate " + purgeSecret
	get3(s.CreateClaim(ctx, claim)).Must(t)
	prop := proposalIn(sp, se, c, "Draft")
	prop.Draft.Content.Summary = withKey
	Get(s.CreateProposal(ctx, prop)).Must(t)
	other := newSpace(t, ctx, s)
	otherSe := newSession(t, ctx, s, other)
	send(t, ctx, s, otherSe, "the other space keeps "+otherSecret)

	if v := Get(s.VerifyCheckpoint(ctx, c.ID)).Must(t); !v.OK || v.Checked != 3 {
		t.Fatalf("before the purge: %+v", v)
	}
	if hits := Get(s.Search(ctx, search.Query{Text: purgeFragment, SpaceID: &sp.ID})).Must(t); len(hits) == 0 {
		t.Fatal("search does not find the key before the purge")
	}
	before := dumpDatabase(t, s)

	_, err := s.PurgeSecrets(userCtx(), secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "mallory", Find: ruleFinder("github-pat")})
	wantCode(t, err, smriti.ENOTFOUND)
	p := Get(s.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "ana", Find: ruleFinder("github-pat")})).Must(t)
	if p.Values != 1 || p.By != "ana" || p.Rule != "github-pat" {
		t.Fatalf("purge = %+v", p)
	}
	kinds := map[string]bool{}
	for _, r := range p.Rows {
		kinds[r.Kind] = true
	}
	for _, k := range []string{"turn", "session", "checkpoint", "item", "note", "claim", "proposal"} {
		if !kinds[k] {
			t.Errorf("the purge rewrote no %s: %+v", k, p.Rows)
		}
	}

	after := dumpDatabase(t, s)
	// The value is nowhere, in any table (the search index's segments
	// included, which hold it lower-cased); the other space keeps its own.
	for table, rows := range after {
		for _, r := range rows {
			if strings.Contains(strings.ToLower(r), strings.ToLower(purgeFragment)) {
				t.Errorf("after the purge %s still holds the key: %.300q", table, r)
			}
		}
	}
	if countContaining(before, strings.ToLower(purgeFragment)) < 10 {
		t.Fatalf("the key was in too few rows to begin with")
	}
	if n := countContaining(after, strings.ToLower(otherSecret[4:])); n == 0 {
		t.Errorf("the purge of one space took the other space's key")
	}
	// Row by row, nothing changed but the key's replacement (and the
	// purge's own records and the search index).
	marker := secrets.Marker("github-pat")
	// The one addition: the rewritten session title is announced to the
	// space's listeners (one event, one log position).
	events := after["space_events"]
	var added []string
	for _, e := range events {
		if !slices.Contains(before["space_events"], e) {
			added = append(added, e)
		}
	}
	if len(added) != 1 || !strings.Contains(added[0], "kind=session.updated | subject_id="+se.ID.String()+" ") {
		t.Errorf("the purge added the events %q, want one session.updated of %s", added, se.ID)
	}
	for table, rows := range before {
		if purgeBookkeeping(table) || table == "store_log" || table == "space_log" {
			continue
		}
		if table == "space_events" {
			rows = append(rows, added...)
		}
		want := make([]string, len(rows))
		for i, r := range rows {
			want[i] = strings.ReplaceAll(r, purgeSecret, marker)
		}
		sort.Strings(want)
		got := after[table]
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("table %s changed beyond the key:\n got %q\nwant %q", table, got, want)
		}
	}
	if hits := Get(s.Search(ctx, search.Query{Text: purgeFragment, SpaceID: &sp.ID})).Must(t); len(hits) != 0 {
		t.Errorf("search finds the purged key: %+v", hits)
	}

	v := Get(s.VerifyCheckpoint(ctx, c.ID)).Must(t)
	if !v.OK || v.Checked != 3 || v.FirstMismatch != nil {
		t.Fatalf("after the purge: %+v", v)
	}
	proven, unproven := map[string]bool{}, map[string]bool{}
	for _, vp := range v.Purged {
		key := vp.CheckpointID.String()[:8] + " " + vp.Field
		if vp.Proven {
			proven[key] = true
		} else {
			unproven[key] = true
		}
		if vp.By != "ana" || vp.Rule != "github-pat" || !strings.Contains(vp.Detail, "purged by ana at ") {
			t.Errorf("purged field reported as %+v", vp)
		}
	}
	wantProven := []string{b.ID.String()[:8] + " decisions[1]", b.ID.String()[:8] + " artifacts[0].content",
		c.ID.String()[:8] + " decisions[1]"}
	for _, k := range wantProven {
		if !proven[k] {
			t.Errorf("verify does not report %s as purged and proven: %+v", k, v.Purged)
		}
	}
	if !unproven[a.ID.String()[:8]+" summary"] || len(unproven) != 1 {
		t.Errorf("verify should say the version 2 checkpoint's summary is no longer proven, and nothing else: %v", unproven)
	}
	// A tampered row is still found after a purge.
	if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET message = 'rewritten' WHERE id = ?`), b.ID); err != nil {
		t.Fatal(err)
	}
	if v := Get(s.VerifyCheckpoint(ctx, c.ID)).Must(t); v.OK || v.FirstMismatch == nil || *v.FirstMismatch != b.ID {
		t.Fatalf("tampered after the purge: %+v", v)
	}
	again := Get(s.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: sp.ID, Rule: "github-pat", By: "ana", Find: ruleFinder("github-pat")})).Must(t)
	if again.Values != 0 || len(again.Rows) != 0 {
		t.Fatalf("a second purge found %+v", again)
	}
}

// rehashLine gives a line of checkpoints (each the parent of the next) the
// hash versions given, as if written by versions that hashed so.
func rehashLine(t *testing.T, ctx context.Context, s *store.Store, versions []int, line ...*smriti.Checkpoint) {
	t.Helper()
	parent := ""
	for i, c := range line {
		items := Get(s.CheckpointItems(ctx, c.ID)).Must(t)
		c.Items, c.HashVersion = items, versions[i]
		c.Hash = c.ComputeHash(parent, "")
		parent = c.Hash
		if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET hash_version = ?, commit_hash = ? WHERE id = ?`), c.HashVersion, c.Hash, c.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// purgeBookkeeping: what a purge writes besides the values it replaces
// (its records, SQLite's full-text index segments).
func purgeBookkeeping(table string) bool {
	return table == "secret_purges" || table == "checkpoint_purged_fields" ||
		strings.HasSuffix(table, "_fts_data") || strings.HasSuffix(table, "_fts_idx") || strings.HasSuffix(table, "_fts_docsize") ||
		table == "turn_fts" || table == "checkpoint_fts" || table == "note_fts"
}

func countContaining(dump map[string][]string, s string) int {
	n := 0
	for _, rows := range dump {
		for _, r := range rows {
			if strings.Contains(strings.ToLower(r), s) {
				n++
			}
		}
	}
	return n
}

// dumpDatabase is every row of every table as tableRows gives it (byte
// columns as they are), rows sorted per table; PostgreSQL's generated
// search columns are left out (the index is checked by search).
func dumpDatabase(t *testing.T, s *store.Store) map[string][]string {
	t.Helper()
	db := s.DB()
	q := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if s.Engine() == "postgres" {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	var tables []string
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		rows := tableRows(t, db, table)
		for i, r := range rows {
			cells := strings.Split(r, " | ")
			kept := cells[:0]
			for _, c := range cells {
				if !strings.HasPrefix(c, "search_tsv=") {
					kept = append(kept, c)
				}
			}
			rows[i] = strings.Join(kept, " | ")
		}
		out[table] = rows
	}
	return out
}
