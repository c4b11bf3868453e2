package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

// TestSpaceLogMigrationPostgres writes rows the way migration 10's schema
// numbers them (one store-wide log), migrates to 11 and back: each space's
// log continues above every position already written, turns without a space
// are numbered by their session, new writes of two spaces take positions of
// their own logs, and the way down gives every row a store-wide position
// again in each space's order.
func TestSpaceLogMigrationPostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, err := store.Migrations("postgres")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	user := smriti.NewID()
	s1, s2, a, b, loose, c1 := smriti.NewID(), smriti.NewID(), smriti.NewID(), smriti.NewID(), smriti.NewID(), smriti.NewID()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	turn := func(session smriti.ID, space any, seq, pos int64, role string) {
		t.Helper()
		exec(`INSERT INTO turns (id, session_id, space_id, role, content, sequence_number, log_pos, created_at)
			VALUES ($1, $2, $3, $4, 'x', $5, $6, now())`, smriti.NewID(), session, space, role, seq, pos)
	}
	for _, sp := range []smriti.ID{s1, s2} {
		exec(`INSERT INTO spaces (id, owner_id, name, created_at, updated_at) VALUES ($1, $2, 'n', now(), now())`, sp, user)
	}
	// The session triggers take positions 1 and 2 (session.created).
	exec(`INSERT INTO sessions (id, space_id, owner_id, last_seq, created_at, updated_at) VALUES ($1, $2, $3, 1, now(), now())`, a, s1, user)
	exec(`INSERT INTO sessions (id, space_id, owner_id, last_seq, created_at, updated_at) VALUES ($1, $2, $3, 1, now(), now())`, b, s2, user)
	exec(`INSERT INTO sessions (id, owner_id, last_seq, created_at, updated_at) VALUES ($1, $2, 1, now(), now())`, loose, user)
	turn(a, s1, 0, 3, "user")
	turn(b, s2, 0, 4, "user")
	turn(a, s1, 1, 5, "assistant")
	turn(loose, nil, 0, 6, "user")
	turn(loose, nil, 1, 7, "assistant")
	turn(b, s2, 1, 8, "assistant")
	exec(`INSERT INTO checkpoints (id, space_id, commit_hash, message, log_pos, created_at) VALUES ($1, $2, $3, 'm', 9, now())`,
		c1, s1, strings.Repeat("a", 64))
	exec(`UPDATE store_log SET position = 9 WHERE id = 1`)

	if _, err := p.UpByOne(ctx); err != nil {
		t.Fatal(err)
	}
	ints := func(q string, args ...any) []int64 {
		t.Helper()
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		out := []int64{}
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	want := func(what string, got []int64, w ...int64) {
		t.Helper()
		if len(got) != len(w) {
			t.Fatalf("%s = %v, want %v", what, got, w)
		}
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("%s = %v, want %v", what, got, w)
			}
		}
	}
	want("space logs", ints(`SELECT position FROM space_log ORDER BY space_id`), 9, 9)
	want("loose turns", ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, loose), 1, 2)
	want("s1 events", ints(`SELECT position FROM space_events WHERE space_id = $1 ORDER BY position`, s1), 1, 5, 9)

	// New writes: a space created now starts its own log; sends to the
	// spaces take their own logs' next positions.
	s, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	uctx := smriti.WithUser(ctx, user)
	s3 := storetest.Get(s.CreateSpace(uctx, smriti.SpaceCreate{Name: "new"})).Must(t)
	c := storetest.Get(s.CreateSession(uctx, smriti.SessionCreate{SpaceID: &s3.ID})).Must(t)
	for _, se := range []smriti.ID{a, b, c.ID, loose} {
		storetest.Get(s.AppendExchange(uctx, contract.Exchange{SessionID: se,
			User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"}})).Must(t)
	}
	want("a", ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, a), 3, 5, 10, 11)
	want("b", ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, b), 4, 8, 10, 11)
	want("new space's session", ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, c.ID), 2, 3)
	want("loose", ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, loose), 1, 2, 3, 4)
	if pos := storetest.Get(s.LogPosition(uctx, s3.ID)).Must(t); pos != 3 {
		t.Fatalf("new space's log position = %d, want 3", pos)
	}
	s.Close()

	// Down: one store-wide numbering again, each space's order kept.
	if _, err := p.DownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	all := ints(`SELECT log_pos FROM turns UNION ALL SELECT log_pos FROM checkpoints ORDER BY 1`)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("positions after down: %v", all)
		}
	}
	for _, se := range []smriti.ID{a, b, c.ID, loose} {
		got := ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, se)
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("session positions after down: %v", got)
			}
		}
	}
	top := ints(`SELECT position FROM store_log`)
	if top[0] < all[len(all)-1] {
		t.Fatalf("store log %d below the last position %d", top[0], all[len(all)-1])
	}
	// The checkpoint stays after a's first two turns and before its last two.
	cp := ints(`SELECT log_pos FROM checkpoints WHERE id = $1`, c1)[0]
	at := ints(`SELECT log_pos FROM turns WHERE session_id = $1 ORDER BY sequence_number`, a)
	if !(at[1] < cp && cp < at[2]) {
		t.Fatalf("checkpoint at %d among a's turns %v", cp, at)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSpacesDoNotWaitOnEachOtherPostgres holds one space's log row in an
// open transaction: a send and a checkpoint in another space commit
// meanwhile, and a send in the held space waits for the row (it is on
// pg_stat_activity waiting for a lock) and commits once it is released.
func TestSpacesDoNotWaitOnEachOtherPostgres(t *testing.T) {
	s := openDSN(t, storetest.PostgresDSN(t))
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	held := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "held"})).Must(t)
	free := storetest.Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "free"})).Must(t)
	inHeld := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &held.ID})).Must(t)
	inFree := storetest.Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &free.ID})).Must(t)
	ex := func(se *smriti.Session) contract.Exchange {
		return contract.Exchange{SessionID: se.ID, User: contract.TurnWrite{Content: "q"}, Assistant: contract.TurnWrite{Content: "a"}}
	}
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE space_log SET position = position WHERE space_id = $1`, held.ID); err != nil {
		t.Fatal(err)
	}
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	storetest.Get(s.AppendExchange(bounded, ex(inFree))).Must(t)
	storetest.Get(s.CommitCheckpoint(bounded, smriti.CheckpointCommit{SpaceID: free.ID, SessionID: inFree.ID,
		Content: smriti.Content{Message: "m"}})).Must(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.AppendExchange(ctx, ex(inHeld))
		done <- err
	}()
	for {
		var waiting int
		if err := s.DB().QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
			AND query LIKE 'UPDATE space_log%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the send in the held space finished (%v) while its log row was held", err)
		case <-bounded.Done():
			t.Fatal("the send in the held space is not waiting for its log row")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
