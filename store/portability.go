package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"smriti"
	"smriti/internal/estimate"
	"smriti/internal/memtrim"
	"smriti/internal/nonnil"
	"smriti/internal/textutil"
	"smriti/records"
	"smriti/store/internal/dbx"
)

// exportPage is how many checkpoints an export reads at a time: with
// their items, a page is most of what an export holds in memory.
const exportPage = 100

// ExportSpace writes the space's records to w in bundle order. It reads inside one
// read-only transaction, so the bundle is one consistent snapshot, and
// streams: checkpoints a page at a time, turns row by row.
func (s *Store) ExportSpace(ctx context.Context, id smriti.ID, w records.Writer) error {
	// Each page read and written is garbage by the next: collect sooner
	// than the heap's doubling would, as an import does (the heap then
	// peaks at one and a half times what is live, not twice).
	defer memtrim.Hold()()
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.Name == "postgres" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer tx.Rollback()
	sp, err := s.space(ctx, tx, id)
	if err != nil {
		return err
	}
	allowed, err := s.allowedSecrets(ctx, tx, id)
	if err != nil {
		return err
	}
	if err := w.Write(records.BundleRecord{Type: records.RecordSpace, Space: &records.BundleSpace{
		ID: sp.ID, Slug: sp.Slug, Name: sp.Name, Description: sp.Description, ProjectRoot: sp.ProjectRoot,
		Metadata: nonnil.Map(sp.Metadata), CreatedAt: sp.CreatedAt.UTC(), UpdatedAt: sp.UpdatedAt.UTC(), AllowedSecrets: allowed,
	}}); err != nil {
		return err
	}
	var counts records.BundleCounts
	// A private session's turns, quotes, claims, receipts and proposals
	// never leave this server (SPEC §3 "Private stays private").
	private, err := s.privateSessions(ctx, tx, id)
	if err != nil {
		return err
	}
	order, err := s.logOrder(ctx, tx, id)
	if err != nil {
		return err
	}
	// Log order is parent order: a parent is always written before its
	// children, merge parents included.
	after := int64(-1)
	for {
		page, err := s.queryCheckpoints(ctx, tx, `SELECT `+checkpointCols+` FROM checkpoints c WHERE c.space_id = ? AND c.log_pos > ?
			ORDER BY c.log_pos LIMIT ?`, id, after, exportPage)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		if err := s.attachNotes(ctx, tx, page); err != nil {
			return err
		}
		if err := s.attachItems(ctx, tx, page...); err != nil {
			return err
		}
		if err := s.attachPurged(ctx, tx, page...); err != nil {
			return err
		}
		for _, c := range page {
			counts.Checkpoints++
			counts.Notes += len(c.Notes)
			b := records.BundleCheckpointOf(c)
			withholdPrivateQuotes(b, private)
			b.LogOrder = order.of(c.LogPos)
			if err := w.Write(records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: b}); err != nil {
				return err
			}
		}
		after = page[len(page)-1].LogPos
	}
	sessions, err := s.querySessions(ctx, tx, `SELECT `+sessionCols+` FROM sessions WHERE space_id = ? ORDER BY created_at, id`, id)
	if err != nil {
		return err
	}
	agents, err := s.agentSources(ctx, tx, id)
	if err != nil {
		return err
	}
	privateKeys := map[string]bool{}
	for _, se := range sessions {
		if private[se.ID] {
			if a := agents[se.ID]; a != nil {
				privateKeys[a.SessionKey] = true
			}
			continue
		}
		counts.Sessions++
		b := &records.BundleSession{
			ID: se.ID, Title: se.Title, ActiveProvider: se.ActiveProvider, ActiveModel: se.ActiveModel,
			SeededCheckpointID: se.SeededCheckpointID, ForkedFromCheckpointID: se.ForkedFromCheckpointID,
			BranchName: se.BranchName, BranchDisposition: se.BranchDisposition, Metadata: nonnil.Map(se.Metadata),
			CreatedAt: se.CreatedAt.UTC(), UpdatedAt: se.UpdatedAt.UTC(), Agent: agents[se.ID],
		}
		if m := se.Mount; m != nil {
			cp, base := m.CheckpointID, m.BaseSeq
			b.MountedCheckpointID, b.MountBaseSeq = &cp, &base
		}
		if err := w.Write(records.BundleRecord{Type: records.RecordSession, Session: b}); err != nil {
			return err
		}
		n, err := s.exportTurns(ctx, tx, se.ID, order, w)
		if err != nil {
			return err
		}
		counts.Turns += n
	}
	if err := s.exportClaims(ctx, tx, id, w, &counts, private); err != nil {
		return err
	}
	if err := s.exportReceipts(ctx, tx, id, w, &counts, privateKeys); err != nil {
		return err
	}
	if err := s.exportProposals(ctx, tx, id, w, &counts, private); err != nil {
		return err
	}
	return w.Write(records.BundleRecord{Type: records.RecordEnd, End: &counts})
}

// exportClaims writes the space's claims, but not a private session's.
func (s *Store) exportClaims(ctx context.Context, tx *sql.Tx, id smriti.ID, w records.Writer, counts *records.BundleCounts, private map[smriti.ID]bool) error {
	claims, err := s.queryClaims(ctx, tx, `SELECT `+claimCols+` FROM claims cl WHERE cl.space_id = ? ORDER BY cl.claimed_at, cl.id`, id)
	if err != nil {
		return err
	}
	ends, err := s.claimEnds(ctx, tx, id)
	if err != nil {
		return err
	}
	for _, c := range claims {
		if c.SessionID != nil && private[*c.SessionID] {
			continue
		}
		counts.Claims++
		b := &records.BundleClaim{
			ID: c.ID, SessionID: c.SessionID, Agent: c.Agent, BranchName: c.BranchName, BaseCheckpointID: c.BaseCheckpointID,
			Scope: c.Scope, TaskID: c.TaskID, Intent: c.Intent, Status: c.Status, ClaimedAt: c.ClaimedAt.UTC(), ExpiresAt: c.ExpiresAt.UTC(),
		}
		if e, ok := ends[c.ID]; ok {
			b.FinishedAt, b.LeaseSeconds = e.finished, e.lease
		}
		if err := w.Write(records.BundleRecord{Type: records.RecordClaim, Claim: b}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) exportTurns(ctx context.Context, tx *sql.Tx, sessionID smriti.ID, order logOrder, w records.Writer) (int, error) {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(`SELECT `+turnCols+` FROM turns WHERE session_id = ? ORDER BY sequence_number`), sessionID)
	if err != nil {
		return 0, fmt.Errorf("export turns: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return n, fmt.Errorf("export turns: %w", err)
		}
		if err := w.Write(records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{
			ID: t.ID, SessionID: t.SessionID, Seq: t.Seq, Role: t.Role, Content: t.Content, Provider: t.Provider,
			Model: t.Model, Tokens: t.Tokens, Metadata: t.Metadata, CreatedAt: t.CreatedAt.UTC(), LogOrder: order.of(t.LogPos),
		}}); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// importReadAhead is how many records an import decodes ahead of the one
// it writes, and importReadAheadBytes how many bytes of their JSON at most
// (a checkpoint of 30 items is some 11 KB; a decoded record takes two or
// three times its JSON).
const (
	importReadAhead      = 64
	importReadAheadBytes = 8 << 20
)

// ImportRecords writes a space's records inside one transaction. The
// records are checked as they are read, each once, and the first that
// fails rolls the whole import back: a bad record cannot leave half a
// space behind.
func (s *Store) ImportRecords(ctx context.Context, in records.Import) (*smriti.Space, error) {
	// An import makes a few hundred kilobytes of short-lived garbage a
	// checkpoint: collect it sooner than the heap's doubling would.
	defer memtrim.Hold()()
	var im *spaceImport
	err := s.tx(ctx, func(tx *sql.Tx) error {
		im = &spaceImport{s: s, ctx: ctx, tx: tx, user: smriti.UserFromContext(ctx), lastSeq: map[smriti.ID]int64{},
			logged: &importLog{n: int64(in.Logged)}, rows: newImportRows(ctx, s, tx)}
		defer im.rows.close()
		if in.Remap != nil {
			im.asNew, im.remap = true, in.Remap()
		}
		rs, err := in.Open()
		if err != nil {
			return err
		}
		ra := newReadAhead(rs, importReadAhead, importReadAheadBytes)
		defer ra.close()
		return im.run(ra)
	})
	// A space deleted and imported again keeps its session ids: turns
	// cached before the delete carry the old log positions.
	if im != nil {
		for id := range im.lastSeq {
			s.cache.Drop(id)
		}
	}
	if im == nil {
		return nil, err
	}
	return im.out, err
}

// importLog gives an import's checkpoints and turns their log positions.
// A bundle that records each one's log order gets a block of n positions
// (n its checkpoints and turns) and each row the one of its order, so the
// space's turns and checkpoints interleave as they did; a bundle without
// orders is logged in record order.
type importLog struct {
	n       int64
	first   int64
	ordered *bool
	seen    []bool
	// placed counts the positions given by order.
	placed int64
}

func (l *importLog) position(ctx context.Context, s *Store, tx *sql.Tx, space smriti.ID, order *int64) (int64, error) {
	if l.ordered == nil {
		ordered := order != nil
		l.ordered = &ordered
		if ordered {
			last, err := s.nextLogPositions(ctx, tx, space, int(l.n))
			if err != nil {
				return 0, err
			}
			l.first, l.seen = last-l.n+1, make([]bool, l.n)
		}
	}
	if !*l.ordered {
		if order != nil {
			return 0, smriti.Errorf(smriti.EUNPROCESSABLE, "the bundle gives a log order to some records and not to others")
		}
		return s.nextLogPositions(ctx, tx, space, 1)
	}
	if order == nil || *order < 0 || *order >= l.n || l.seen[*order] {
		return 0, smriti.Errorf(smriti.EUNPROCESSABLE, "the bundle's log orders must number its checkpoints and turns 0 to %d, each once", l.n-1)
	}
	l.seen[*order] = true
	l.placed++
	return l.first + *order, nil
}

// complete refuses an ordered import that left some of its n positions
// unused: the records held fewer checkpoints and turns than it was told.
func (l *importLog) complete() error {
	if l.ordered != nil && *l.ordered && l.placed != l.n {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "the bundle's log orders must number its checkpoints and turns 0 to %d, each once", l.n-1)
	}
	return nil
}

func (s *Store) insertImportedSpace(ctx context.Context, tx *sql.Tx, sp *smriti.Space) error {
	var owner smriti.ID
	err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT owner_id FROM spaces WHERE id = ?`), sp.ID).Scan(&owner)
	switch {
	case err == nil && owner == sp.OwnerID:
		return smriti.Errorf(smriti.ECONFLICT, "Space %s already exists on this server; import it with as_new to make a copy with new ids", sp.ID)
	case err == nil:
		return smriti.Errorf(smriti.ECONFLICT, "The bundle's ids are already in use on this server; import it with as_new to give it new ids")
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("import space: %w", err)
	}
	if err := s.checkSpaceName(ctx, tx, sp.OwnerID, sp.Name); err != nil {
		return err
	}
	meta, err := dbx.JSONArg(sp.Metadata)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO spaces (id, slug, owner_id, name, description, project_root, metadata, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		sp.ID, sp.Slug, sp.OwnerID, sp.Name, sp.Description, sp.ProjectRoot, meta, s.d.T(sp.CreatedAt), s.d.T(sp.UpdatedAt))
	if err != nil {
		return importConflict(fmt.Errorf("import space: %w", err))
	}
	return nil
}

// importConflict turns a unique-key violation (an id or hash of the bundle
// that is already stored, perhaps in another user's space) into a conflict
// that names no other row.
func importConflict(err error) error {
	if uniqueViolation(err) {
		return smriti.Errorf(smriti.ECONFLICT, "The bundle's ids are already in use on this server; import it with as_new to give it new ids")
	}
	return err
}

// ImportConversation implements portability.TranscriptStore.
func (s *Store) ImportConversation(ctx context.Context, spaceID smriti.ID, c *records.Conversation, filename string) (*smriti.Session, bool, error) {
	hash := c.ContentHash()
	var out *smriti.Session
	created := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.Now()
		if err := s.lockSpace(ctx, tx, spaceID, now); err != nil {
			return err
		}
		var prior sql.NullString
		err := tx.QueryRowContext(ctx, s.d.Rebind(`SELECT session_id FROM transcript_imports WHERE space_id = ? AND content_hash = ?`), spaceID, hash).Scan(&prior)
		if err == nil {
			if prior.Valid {
				id, perr := smriti.ParseID("session_id", prior.String)
				if perr == nil {
					if out, err = s.session(ctx, tx, id, ""); err == nil {
						return nil
					}
				}
			}
			// The session was deleted since; the conversation stays
			// imported (a no-op), reported without a session.
			out = nil
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("import: %w", err)
		}
		title := textutil.Truncate(strings.TrimSpace(c.Title), records.MaxImportTitleChars)
		if title == "" {
			title = "Imported conversation"
		}
		meta := map[string]any{"import": map[string]any{"source": c.Source, "content_hash": hash, "file": textutil.Truncate(filename, 255)}}
		if c.ExternalID != "" {
			meta["import"].(map[string]any)["external_id"] = c.ExternalID
		}
		if c.CreatedAt != nil {
			meta["import"].(map[string]any)["original_created_at"] = c.CreatedAt.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
		}
		se := &smriti.Session{ID: smriti.NewID(), SpaceID: &spaceID, OwnerID: smriti.UserFromContext(ctx), Title: title,
			ActiveProvider: "import", ActiveModel: c.Source, BranchName: smriti.MainBranch, BranchDisposition: smriti.DispositionActive,
			Metadata: meta, LastSeq: int64(len(c.Turns)) - 1, CreatedAt: now, UpdatedAt: now}
		if err := s.insertSession(ctx, tx, se); err != nil {
			return err
		}
		var last int64
		if n := len(c.Turns); n > 0 {
			if last, err = s.nextLogPositions(ctx, tx, spaceID, n); err != nil {
				return err
			}
		}
		first := last - int64(len(c.Turns)) + 1
		for i, ct := range c.Turns {
			t := &smriti.Turn{ID: smriti.NewID(), SessionID: se.ID, SpaceID: &spaceID, Role: ct.Role, Content: ct.Content,
				Provider: "import", Model: c.Source, Seq: int64(i), LogPos: first + int64(i), Tokens: estimate.Tokens(ct.Content),
				Metadata: ct.Metadata(c), CreatedAt: now}
			if err := s.insertTurn(ctx, tx, t); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO transcript_imports (space_id, content_hash, session_id, created_at) VALUES (?, ?, ?, ?)`),
			spaceID, hash, se.ID, s.d.T(now)); err != nil {
			return fmt.Errorf("record import: %w", err)
		}
		out, created = se, true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, created, nil
}
