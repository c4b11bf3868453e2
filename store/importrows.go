package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"smriti"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// importRows gathers the checkpoint, item, note and turn rows of a space
// import and writes them many rows a statement, each statement prepared
// once on the import's transaction. A clone of ten thousand checkpoints
// otherwise pays a statement (and on SQLite a parse of its SQL) per row,
// and per turn a read of the previous turn's running token total and an
// update of its session.
//
// Rows are written in an order the foreign keys accept: checkpoints before
// their items and notes, every pending checkpoint before a session (which
// may name one as its seed or fork source), a session before its turns.
type importRows struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	// stmts are the statements prepared on tx, by query; closed with it.
	stmts map[string]*sql.Stmt
	// anc places each checkpoint in the ancestry index; the checkpoints
	// written by this import are added to it, so placing a child reads
	// nothing from the database.
	anc *ancestry

	// copier writes the rows with COPY (PostgreSQL; nil: by insert).
	copier *importCopy

	checkpoints, items, notes, turns pendingRows
	// tokens is each imported session's running token total.
	tokens map[smriti.ID]int64
}

// pendingRows is the arguments of rows not yet written, cols to a row.
type pendingRows struct {
	args []any
	rows int
}

func (p *pendingRows) add(cols int, args []any) {
	p.args = append(p.args, args...)
	p.rows += len(args) / cols
}

// Statement sizes, in rows: few enough parameters for either engine
// (SQLite allows 32,766 a statement, PostgreSQL 65,535), many enough that
// a statement's own cost is spread thin.
const (
	importCheckpointRows = 64
	importItemRows       = 256
	importNoteRows       = 64
	importTurnRows       = 128
)

// importPendingItems bounds the item rows held before they are written
// (checkpoints are written importCheckpointRows at a time, or sooner when
// theirs hold this many items).
const importPendingItems = 4096

const (
	sqlInsertNotesHead = `INSERT INTO checkpoint_notes (id, checkpoint_id, author, text, kind, created_at) VALUES `
	noteRowArgs        = 6
	turnRowArgs        = 13
)

func newImportRows(ctx context.Context, s *Store, tx *sql.Tx) *importRows {
	return &importRows{s: s, ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}, anc: s.newAncestry(tx), tokens: map[smriti.ID]int64{},
		copier: s.importCopier(tx)}
}

// close releases the statements prepared on the transaction.
func (r *importRows) close() {
	for _, st := range r.stmts {
		st.Close()
	}
	r.stmts = nil
}

// checkpoint queues c (hash and log position set, HashVersion 2: its
// items are its own) with its items and notes.
func (r *importRows) checkpoint(c *smriti.Checkpoint, notes []records.BundleNote, noteID func(smriti.ID) smriti.ID) error {
	depth, skip, placed, err := r.anc.placement(r.ctx, c.ParentID)
	if err != nil {
		return err
	}
	args, err := r.s.checkpointRowArgs(c, depth, skip, placed)
	if err != nil {
		return err
	}
	r.checkpoints.add(checkpointRowArgs, args)
	if args, err = itemRowsArgs(c); err != nil {
		return err
	}
	r.items.add(itemRowArgs, args)
	for _, n := range notes {
		r.notes.add(noteRowArgs, []any{noteID(n.ID), c.ID, n.Author, n.Text, n.Kind, r.s.d.T(n.CreatedAt)})
	}
	if len(c.Purged) > 0 {
		// A purged field's record names its checkpoint: the row first.
		// (Rare: only checkpoints a purge rewrote carry them.)
		if err := r.flushCheckpoints(); err != nil {
			return err
		}
		for _, f := range c.Purged {
			if err := r.s.writePurgedField(r.ctx, r.tx, c.ID, f, nil); err != nil {
				return importConflict(err)
			}
		}
	}
	if !placed {
		// Without a depth the row is what a walk reads (and gives up on):
		// it must be in the database before a child is placed.
		return r.flushCheckpoints()
	}
	r.anc.nodes[c.ID] = &ancNode{id: c.ID, depth: depth, parent: c.ParentID, skip: skip, logPos: c.LogPos}
	if r.checkpoints.rows >= importCheckpointRows || r.items.rows >= importPendingItems {
		return r.flushCheckpoints()
	}
	return nil
}

// turn queues t, the next turn of its session (a bundle numbers each
// session's turns 0, 1, 2 … in order): its running token total continues
// the session's.
func (r *importRows) turn(t *smriti.Turn) error {
	total := r.tokens[t.SessionID] + int64(t.Tokens)
	r.tokens[t.SessionID] = total
	args, err := r.s.turnArgs([]*smriti.Turn{t}, []int64{total})
	if err != nil {
		return err
	}
	r.turns.add(turnRowArgs, args)
	if r.turns.rows >= importTurnRows {
		return r.flushTurns()
	}
	return nil
}

// flush writes every pending row.
func (r *importRows) flush() error {
	if err := r.flushCheckpoints(); err != nil {
		return err
	}
	return r.flushTurns()
}

// flushCheckpoints writes the pending checkpoints, then their items and
// notes.
func (r *importRows) flushCheckpoints() error {
	if err := r.write(&r.checkpoints, sqlInsertCheckpointHead, checkpointRowArgs, importCheckpointRows, "insert checkpoints"); err != nil {
		return err
	}
	if err := r.write(&r.items, sqlInsertItemsHead, itemRowArgs, importItemRows, "insert items"); err != nil {
		return err
	}
	return r.write(&r.notes, sqlInsertNotesHead, noteRowArgs, importNoteRows, "import note")
}

func (r *importRows) flushTurns() error {
	return r.write(&r.turns, sqlInsertTurnsHead, turnRowArgs, importTurnRows, "insert turns")
}

// write inserts p's rows with head (an INSERT … VALUES) in statements of
// most rows each; the rest in statements of the powers of two below it, so
// an import prepares a handful of statements whatever its row counts.
func (r *importRows) write(p *pendingRows, head string, cols, most int, what string) error {
	if r.copier != nil && p.rows >= r.copier.min {
		return r.copier.write(r.ctx, p, head, cols, what)
	}
	args := p.args
	for rows := p.rows; rows > 0; {
		n := most
		for n > rows {
			n /= 2
		}
		st, err := r.stmt(head, cols, n)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(r.ctx, args[:n*cols]...); err != nil {
			return importConflict(fmt.Errorf("%s: %w", what, err))
		}
		args, rows = args[n*cols:], rows-n
	}
	clear(p.args)
	p.args, p.rows = p.args[:0], 0
	return nil
}

// stmt is the insert of n rows of cols values, prepared on the import's
// transaction (on a transaction-mode pooler, its text).
func (r *importRows) stmt(head string, cols, n int) (dbx.Stmt, error) {
	query := head + strings.TrimSuffix(strings.Repeat("("+dbx.Placeholders(cols)+"), ", n), ", ")
	if r.s.unprepared() {
		return dbx.TextStmt{Q: r.tx, Query: r.s.d.Rebind(query)}, nil
	}
	if st, ok := r.stmts[query]; ok {
		return st, nil
	}
	st, err := r.tx.PrepareContext(r.ctx, r.s.d.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("import: prepare: %w", err)
	}
	r.stmts[query] = st
	return st, nil
}

// setSessionTotals stores each imported session's last sequence number and
// token total.
func (r *importRows) setSessionTotals(lastSeq map[smriti.ID]int64) error {
	for id, seq := range lastSeq {
		if seq < 0 {
			continue
		}
		if _, err := r.tx.ExecContext(r.ctx, r.s.d.Rebind(`UPDATE sessions SET last_seq = ?, token_total = ? WHERE id = ?`), seq, r.tokens[id], id); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}
