package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"smriti"
	"smriti/account"
	"smriti/receipt"
	"smriti/records"
	"smriti/store/internal/dbx"
)

var _ receipt.Service = (*Store)(nil)

const receiptCols = `r.id, r.space_id, r.agent_session, r.host, r.event, r.trigger_kind, r.checkpoint_id, r.live_ids, r.injected_ids,
	r.omitted_ids, r.missing_ids, r.list_command, r.tokens, r.status, r.created_at`

func scanReceipt(row interface{ Scan(...any) error }) (*receipt.Receipt, error) {
	var r receipt.Receipt
	var cp uuid.NullUUID
	var live, in, omitted, missing string
	var created dbx.Time
	if err := row.Scan(&r.ID, &r.SpaceID, &r.AgentSession, &r.Host, &r.Event, &r.Trigger, &cp, &live, &in, &omitted, &missing,
		&r.ListCommand, &r.Tokens, &r.Status, &created); err != nil {
		return nil, err
	}
	r.CheckpointID, r.CreatedAt = dbx.NullID(cp), created.Time
	for _, l := range []struct {
		src string
		dst *[]string
	}{{live, &r.LiveIDs}, {in, &r.InjectedIDs}, {omitted, &r.OmittedIDs}, {missing, &r.MissingIDs}} {
		if err := json.Unmarshal([]byte(l.src), l.dst); err != nil {
			return nil, fmt.Errorf("receipt %s: item ids: %w", r.ID, err)
		}
		if *l.dst == nil {
			*l.dst = []string{}
		}
	}
	return &r, nil
}

func idList(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// AddReceipt implements receipt.Service.
func (s *Store) AddReceipt(ctx context.Context, r *receipt.Receipt) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.requireRole(ctx, tx, r.SpaceID, account.NeedWrite); err != nil {
			return err
		}
		return s.insertReceipt(ctx, tx, r)
	})
}

// Receipts implements receipt.Service.
func (s *Store) Receipts(ctx context.Context, spaceID smriti.ID, limit int) ([]*receipt.Receipt, error) {
	if _, err := s.space(ctx, s.read, spaceID); err != nil {
		return nil, err
	}
	return dbx.QueryAll(ctx, s.d, s.read, "list compaction receipts", scanReceipt, `SELECT `+receiptCols+`
		FROM compaction_receipts r JOIN spaces sp ON sp.id = r.space_id WHERE sp.id`+memberSpace+` AND r.space_id = ?
		ORDER BY r.created_at DESC, r.id DESC LIMIT ?`, smriti.UserFromContext(ctx), spaceID, dbx.ClampLimit(limit, smriti.ListCap, smriti.ListCap))
}

// exportReceipts writes the space's receipts to a bundle, oldest first.
func (s *Store) exportReceipts(ctx context.Context, tx *sql.Tx, space smriti.ID, w records.Writer, counts *records.BundleCounts, privateKeys map[string]bool) error {
	rs, err := dbx.QueryAll(ctx, s.d, tx, "export: compaction receipts", scanReceipt, `SELECT `+receiptCols+`
		FROM compaction_receipts r WHERE r.space_id = ? ORDER BY r.created_at, r.id`, space)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if privateKeys[r.AgentSession] {
			continue
		}
		counts.Receipts++
		if err := w.Write(records.BundleRecord{Type: records.RecordReceipt, Receipt: records.BundleReceiptOf(r)}); err != nil {
			return err
		}
	}
	return nil
}

// importReceipt writes a bundle's receipt into the space (with new ids when
// remap is set).
func (s *Store) importReceipt(ctx context.Context, tx *sql.Tx, space smriti.ID, b *records.BundleReceipt, remap records.Remapper) error {
	r := b.Receipt(space)
	if remap != nil {
		r.ID, r.CheckpointID = remap.ID(b.ID), remap.Opt(b.CheckpointID)
	}
	if err := s.insertReceipt(ctx, tx, r); err != nil {
		return importConflict(err)
	}
	return nil
}

func (s *Store) insertReceipt(ctx context.Context, tx *sql.Tx, r *receipt.Receipt) error {
	_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO compaction_receipts (id, space_id, agent_session, host, event, trigger_kind,
		checkpoint_id, live_ids, injected_ids, omitted_ids, missing_ids, list_command, tokens, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), r.ID, r.SpaceID, r.AgentSession, r.Host, r.Event, r.Trigger,
		dbx.IDArg(r.CheckpointID), idList(r.LiveIDs), idList(r.InjectedIDs), idList(r.OmittedIDs), idList(r.MissingIDs),
		r.ListCommand, r.Tokens, r.Status, s.d.T(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert compaction receipt: %w", err)
	}
	return nil
}
