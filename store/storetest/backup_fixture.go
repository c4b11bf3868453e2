package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/account"
	"smriti/coord"
	"smriti/portability"
	"smriti/proposal"
	"smriti/receipt"
	"smriti/store"
)

// BackupFixture is what FillForBackup wrote.
type BackupFixture struct {
	// Spaces are the spaces written, the local user's first.
	Spaces []smriti.ID
	// Checkpoints counts the checkpoints written.
	Checkpoints int
}

// FillForBackup writes every kind of row a backup must carry into s, which
// should be empty: users with password hashes, API tokens (one revoked),
// a membership; a space of the built-in local user with sessions and turns,
// notes, a fork, a plain merge and a merge whose conflict a resolution
// settled (an item row with change.merge), claims (one finished), a mount,
// tasks with annotations, artifacts, source turns and an agent transcript;
// proposals (pending, accepted, rejected); a space owned by another user;
// and a space whose checkpoints were written before items had ids
// (version 1 hashes, items derived at start-up). The merges are made with
// merge (the App's).
func FillForBackup(t *testing.T, s *store.Store, merge Merge) BackupFixture {
	t.Helper()
	bg := context.Background()
	var fx BackupFixture
	alice := Get(s.CreateUser(bg, "alice", "$argon2id$v=19$m=65536,t=1,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo")).Must(t)
	bob := Get(s.CreateUser(bg, "bob", "$argon2id$v=19$m=65536,t=1,p=4$c2FsdDI$aGFzaDI")).Must(t)
	expires := s.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Microsecond)
	for i, tk := range []*account.APIToken{
		{ID: smriti.NewID(), UserID: alice.ID, Name: "laptop", Scope: account.ScopeWrite, CreatedAt: s.Now(), ExpiresAt: &expires},
		{ID: smriti.NewID(), UserID: bob.ID, Name: "ci", Scope: account.ScopeRead, CreatedAt: s.Now()},
	} {
		if err := s.CreateToken(bg, tk, fmt.Sprintf("%064x", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	Get(s.RevokeToken(bg, bob.ID, Get(s.Tokens(bg, bob.ID)).Must(t)[0].ID)).Must(t)

	// The local user's space: the single-user server's data.
	ctx := smriti.WithUser(bg, smriti.LocalUserID)
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "Backup fixture", Description: "every kind of row"})).Must(t)
	fx.Spaces = append(fx.Spaces, sp.ID)
	main := newSession(t, ctx, s, sp)
	send(t, ctx, s, main, "Shall we keep access tokens short-lived?")
	first := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: main.ID,
		SourceTurns: &smriti.SourceTurns{SessionID: main.ID, FromSeq: 0, ToSeq: 1},
		Content: smriti.Content{Message: "Auth plan", Objective: "Ship auth", Summary: "Tokens and sessions",
			Decisions:   []string{"Access token TTL is 15 minutes", "Use Go"},
			Assumptions: []string{"Clients refresh on 401"},
			Tasks: []smriti.Task{{Text: "Write the token store", ID: "tok-1", IntentHint: smriti.IntentImplement, Structured: true},
				{Text: "Review the threat model", BlockedBy: []string{"tok-1"}, Structured: true}},
			OpenQuestions: []string{"Rotate refresh tokens?"}, Entities: []string{"auth-service"},
			Artifacts: []smriti.Artifact{{ID: "schema", Type: "code", Label: "tokens.sql", Content: "CREATE TABLE tokens (id TEXT);"}}}})).Must(t)
	Get(s.AddNote(ctx, first.ID, smriti.NoteCreate{Author: "ana", Text: "Milestone: design agreed", Kind: smriti.NoteKindMilestone})).Must(t)
	Get(s.AddNote(ctx, first.ID, smriti.NoteCreate{Author: "bo", Text: "typo in the summary", Kind: smriti.NoteKindNoise})).Must(t)
	ttl := itemNamed(t, Get(s.CheckpointItems(ctx, first.ID)).Must(t), "Access token TTL is 15 minutes")

	fork := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: first.ID, BranchName: "short-ttl"})).Must(t)
	send(t, ctx, s, fork, "Make it 5 minutes")
	quote := "Make it 5 minutes"
	from, to := int64(0), int64(1)
	b1 := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: fork.ID,
		Content: smriti.Content{Message: "Short TTL", Decisions: []string{"Access token TTL is 5 minutes", "Use Go"},
			Assumptions: []string{"Clients refresh on 401"}},
		Items: []smriti.Item{{ID: ttl.ID, Kind: smriti.KindDecision, Text: "Access token TTL is 5 minutes",
			Change: &smriti.ItemChange{Op: smriti.OpUpdate, Source: smriti.ItemSource{SessionID: &fork.ID, FromSeq: &from, ToSeq: &to, Quote: &quote}},
			Refs:   []smriti.ItemRef{{Path: "auth/ttl.go", Lines: &smriti.LineRange{From: 3, To: 9}, Commit: strings.Repeat("1f", 20), SpanHash: strings.Repeat("e0", 32)}}}}})).Must(t)
	send(t, ctx, s, main, "No, 30 minutes")
	m1 := commit(t, ctx, s, sp, main, "Longer TTL", "Access token TTL is 30 minutes", "Use Go")
	if _, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "agent-1", Scope: "token store", BranchName: "short-ttl",
		BaseCheckpointID: &b1.ID, SessionID: &fork.ID, Intent: smriti.IntentImplement, TaskID: "tok-1"}); err != nil {
		t.Fatal(err)
	}
	done, _, err := s.CreateClaim(ctx, coord.ClaimCreate{SpaceID: sp.ID, Agent: "agent-2", Scope: "docs", BranchName: smriti.MainBranch,
		BaseCheckpointID: &m1.ID, Intent: smriti.IntentImplement})
	if err != nil {
		t.Fatal(err)
	}
	Get(s.FinishClaim(ctx, done.ID, coord.ClaimDone)).Must(t)
	// A compaction receipt, as a hook records one after a host compacted.
	rc := receiptOf(sp, &m1.ID, time.Date(2026, 12, 3, 10, 14, 0, 0, time.UTC), receipt.Incomplete, "d-000001")
	if err := s.AddReceipt(ctx, rc); err != nil {
		t.Fatal(err)
	}
	resolved := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: b1.ID,
		Resolutions: []smriti.MergeResolution{{Field: "decisions", Key: ttl.ID, Choice: smriti.ChooseTheirs},
			{Field: "summary", Choice: smriti.ChooseOurs}}})).Must(t).Checkpoint
	// A second fork merged without conflicts, through the store directly.
	fork2 := Get(s.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: resolved.ID, BranchName: "docs"})).Must(t)
	d1 := commit(t, ctx, s, sp, fork2, "Docs", "Access token TTL is 5 minutes", "Use Go", "Document the TTL")
	plain := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: d1.ID})).Must(t).Checkpoint
	mounted := newSession(t, ctx, s, sp)
	send(t, ctx, s, mounted, "before the mount")
	Get(s.SetMount(ctx, mounted.ID, &smriti.Mount{CheckpointID: first.ID, BaseSeq: 1})).Must(t)
	send(t, ctx, s, mounted, "after the mount")
	if _, _, _, err := s.AppendAgentEntries(ctx, sp.ID, portability.SourceClaudeCode, "agent-session-1", "Agent run",
		[]portability.AgentEntry{{Key: "u1", Kind: portability.AgentMessage, Role: smriti.RoleUser, Content: "fix the tests"},
			{Key: "a1", Kind: portability.AgentMessage, Role: smriti.RoleAssistant, Content: "done"}}); err != nil {
		t.Fatal(err)
	}
	_ = plain
	fx.Checkpoints += 6
	// Proposals: one waiting, one accepted (naming its checkpoint), one rejected.
	Get(s.CreateProposal(ctx, proposalIn(sp, main, m1, "Waiting draft"))).Must(t)
	took := Get(s.CreateProposal(ctx, proposalIn(sp, main, first, "Accepted draft"))).Must(t)
	Get(s.SetProposalStatus(ctx, took.ID, proposal.Pending, proposal.Accepted, &m1.ID)).Must(t)
	no := Get(s.CreateProposal(ctx, proposalIn(sp, fork, b1, "Rejected draft"))).Must(t)
	Get(s.SetProposalStatus(ctx, no.ID, proposal.Pending, proposal.Rejected, nil)).Must(t)

	// Alice's space, shared with bob.
	actx := smriti.WithUser(bg, alice.ID)
	asp := Get(s.CreateSpace(actx, smriti.SpaceCreate{Name: "Alice's notes", Description: ""})).Must(t)
	fx.Spaces = append(fx.Spaces, asp.ID)
	ase := newSession(t, actx, s, asp)
	send(t, actx, s, ase, "hello")
	commit(t, actx, s, asp, ase, "Hello", "Say hello")
	Get(s.SetMember(actx, asp.ID, bob.ID, account.RoleViewer)).Must(t)
	fx.Checkpoints++

	// A space from before items had ids: version 1 hashes, items derived.
	osp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "Old space", Description: "v1"})).Must(t)
	fx.Spaces = append(fx.Spaces, osp.ID)
	ose := newSession(t, ctx, s, osp)
	asVersion1(t, s, commit(t, ctx, s, osp, ose, "Old A", "Use SQLite"), commit(t, ctx, s, osp, ose, "Old B", "use sqlite", "Ship weekly"))
	if err := s.BackfillItems(bg); err != nil {
		t.Fatal(err)
	}
	commit(t, ctx, s, osp, ose, "New C", "use sqlite", "Ship weekly", "Add backups")
	fx.Checkpoints += 3
	return fx
}

// RestoreExempt names the tables, and the values, that a restore does not
// reproduce byte for byte, and why; StoreRows leaves them out.
var RestoreExempt = map[string]string{
	"goose*":           "migration bookkeeping: when each migration ran on this database",
	"store_log":        "the next free log position (SQLite): a restore logs its rows afresh",
	"space_log":        "each space's next free log position (PostgreSQL): a restore logs its rows afresh",
	"space_events":     "the live event stream: a restored server starts a new one (clients resume from the state, not an old Last-Event-ID)",
	"*_fts_*":          "the full-text index's internal pages, rebuilt from the rows by triggers (its content table is compared without rowids)",
	"log_pos":          "log positions are compared as each row's place in its space's log (SPEC §3: positions are ordered only within a space)",
	"users.local":      "the built-in local user is created by each store when it opens; its created_at is that moment",
	"*_fts_content.id": "the index rowid is the row's log position",
}

// StoreRows reads every row of every table of s (but RestoreExempt), each
// table's rows as text sorted, for comparing two stores row by row. Values
// are normalised so the two engines' encodings compare: times as UTC RFC
// 3339 with microseconds, booleans as 0/1, JSON as it was stored; a
// checkpoint's or turn's log_pos becomes its place among its space's
// checkpoints and turns.
func StoreRows(t *testing.T, s *store.Store) map[string][]string {
	t.Helper()
	db := s.DB()
	var q string
	if s.Engine() == "sqlite" {
		q = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'goose%' ORDER BY name`
	} else {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
			AND table_name NOT LIKE 'goose%' ORDER BY table_name`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	order := logOrders(t, db)
	out := map[string][]string{}
	for _, table := range tables {
		switch {
		case table == "store_log" || table == "space_log" || table == "space_events":
			continue
		case strings.Contains(table, "_fts_") && !strings.HasSuffix(table, "_fts_content"):
			continue
		case strings.Contains(table, "_fts"):
			if !strings.Contains(table, "_fts_") {
				continue // the virtual table itself: its content is compared
			}
		}
		rows := tableRows(t, db, table)
		for i, r := range rows {
			cells := strings.Split(r, " | ")
			kept := cells[:0]
			var space string
			for _, c := range cells {
				if v, ok := strings.CutPrefix(c, "space_id="); ok {
					space = v
				}
			}
			for _, c := range cells {
				switch {
				case strings.HasSuffix(table, "_fts_content") && strings.HasPrefix(c, "id="):
					continue
				case (table == "checkpoints" || table == "turns") && strings.HasPrefix(c, "log_pos="):
					c = "log_order=" + order[space+"/"+strings.TrimPrefix(c, "log_pos=")]
				case table == "users" && strings.HasPrefix(c, "created_at=") && strings.Contains(r, "id="+smriti.LocalUserID.String()+" "):
					continue
				}
				kept = append(kept, c)
			}
			rows[i] = strings.Join(kept, " | ")
		}
		sort.Strings(rows)
		out[table] = rows
	}
	return out
}

// logOrders maps "space/position" to the position's place among the
// space's checkpoint and turn positions.
func logOrders(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT space_id, log_pos FROM checkpoints UNION ALL
		SELECT se.space_id, tu.log_pos FROM turns tu JOIN sessions se ON se.id = tu.session_id WHERE se.space_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	bySpace := map[string][]int64{}
	for rows.Next() {
		var space any
		var pos int64
		if err := rows.Scan(&space, &pos); err != nil {
			t.Fatal(err)
		}
		k := cellText(space)
		bySpace[k] = append(bySpace[k], pos)
	}
	out := map[string]string{}
	for space, ps := range bySpace {
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		for i, p := range ps {
			out[fmt.Sprintf("%s/%d", space, p)] = fmt.Sprint(i)
		}
	}
	return out
}

func tableRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM ` + table)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cells := make([]string, len(cols))
		for i, v := range vals {
			cells[i] = cols[i] + "=" + cellText(v)
		}
		out = append(out, strings.Join(cells, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000000Z")
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	return fmt.Sprint(v)
}

// DiffStoreRows lists the differences between two StoreRows results: per
// table, rows only in a and rows only in b.
func DiffStoreRows(a, b map[string][]string) []string {
	var out []string
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		inB := map[string]int{}
		for _, r := range b[n] {
			inB[r]++
		}
		inA := map[string]int{}
		for _, r := range a[n] {
			inA[r]++
		}
		for _, r := range a[n] {
			if inB[r] == 0 {
				out = append(out, n+": only before: "+r)
			} else {
				inB[r]--
			}
		}
		for _, r := range b[n] {
			if inA[r] == 0 {
				out = append(out, n+": only after:  "+r)
			} else {
				inA[r]--
			}
		}
	}
	return out
}
