// Package secretlog holds the records of secrets a space found, purged
// and allowed: what a purge is asked to remove and what it reports, what
// verify says of a purged field, the allowlist, and what a scan of stored
// records found. The detector itself is package secrets.
package secretlog

import (
	"context"
	"smriti"
	"time"
)

// SecretMatch is one secret a purge replaces: the value, and what replaces
// it (a marker naming the rule that found it).
type SecretMatch struct {
	Value       string
	Rule        string
	Replacement string
}

// PurgeRequest is what a purge removes from one space: every value Find
// returns for some stored text (the caller chooses them, by rule or by
// fingerprint), wherever in the space it is stored. Rule and Fingerprint
// are what the caller chose, for the audit; By is who purged.
type PurgeRequest struct {
	SpaceID     smriti.ID
	Rule        string
	Fingerprint string
	By          string
	Find        func(text string) []SecretMatch
	// Full asks for every old byte to leave the database's files even where
	// that locks the rewritten tables (PostgreSQL's VACUUM FULL), and for
	// that step to run even when nothing is found to purge (to finish an
	// earlier purge); see SecretPurge.Erasure.
	Full bool
}

// SecretPurge is the audit record of a purge: who, when, what it chose,
// how many distinct values it replaced and which stored fields it rewrote.
type SecretPurge struct {
	ID          smriti.ID   `json:"id" doc:"The purge"`
	SpaceID     smriti.ID   `json:"space_id" doc:"The space it purged"`
	By          string      `json:"purged_by" doc:"Who purged"`
	At          time.Time   `json:"purged_at" doc:"When"`
	Rule        string      `json:"rule" doc:"The rule it purged the values of ('' when chosen by fingerprint alone)"`
	Fingerprint string      `json:"fingerprint" doc:"The fingerprint of the one value it purged ('' when chosen by rule)"`
	Values      int         `json:"values" doc:"Distinct secret values replaced"`
	Rows        []PurgedRow `json:"rows" doc:"Every stored field it rewrote"`
	Erasure     string      `json:"erasure" doc:"What became of the old bytes in the database's files once the purge committed: 'rewritten' (no copy remains in them: SQLite's file rebuilt from its live rows and its write-ahead log emptied; on PostgreSQL, with full, the rewritten tables and their indexes copied into new files and the old ones dropped), 'vacuumed' (PostgreSQL without full: the dead row versions removed and the full-text indexes rebuilt, but freed space inside a table's pages can hold old bytes until it is reused; purge again with full to rewrite the tables), 'incomplete: …' (the purge stands, the reason it could not reach the files follows; run it again), or 'none' when nothing was purged. PostgreSQL's own write-ahead log, WAL archives and base backups keep old bytes until they are recycled: outside what the purge can reach"`
}

// What SecretPurge.Erasure reports.
const (
	ErasureNone       = "none"
	ErasureRewritten  = "rewritten"
	ErasureVacuumed   = "vacuumed"
	ErasureIncomplete = "incomplete"
)

// PurgedRow is one stored field a purge rewrote.
type PurgedRow struct {
	Kind  string `json:"kind" enum:"turn,session,checkpoint,item,note,claim,proposal,receipt,staged,idempotency" doc:"What holds it: a turn, a session, a checkpoint, a checkpoint's item row, a note, a claim, a proposal (draft), a compaction receipt, a record fetched and not yet applied, a kept answer to a retried write"`
	ID    string `json:"id" doc:"The record (a checkpoint's item row: checkpoint id/item id)"`
	Field string `json:"field" doc:"The field: content, metadata, title, message, decisions[2], items[d-1a2b3c], text, draft, …"`
}

// SecretAllow is a value a space keeps although it looks like a secret (a
// test fixture's fake key): the rule that finds it and its fingerprint.
// Every door lets it through in that space, and nowhere else.
type SecretAllow struct {
	SpaceID     smriti.ID `json:"space_id" doc:"The space"`
	Rule        string    `json:"rule" doc:"The detection rule that finds the value"`
	Fingerprint string    `json:"fingerprint" doc:"The value's fingerprint (the first 16 hex digits of its SHA-256), as secrets scan reports it"`
	CreatedBy   string    `json:"created_by" doc:"Who allowed it"`
	CreatedAt   time.Time `json:"created_at" doc:"When"`
}

// SecretService keeps a space's secret purges and allowlist. Every method
// is scoped to the caller in ctx: ENOTFOUND for a space they may not see.
type SecretService interface {
	// PurgeSecrets replaces the values req.Find picks wherever the space
	// stores them (see the store's documentation) and records the purge.
	// EFORBIDDEN unless the caller owns the space.
	PurgeSecrets(ctx context.Context, req PurgeRequest) (*SecretPurge, error)
	// AllowSecret adds a value to the space's allowlist (again is a
	// no-op answering the entry as it was). EFORBIDDEN unless the caller
	// owns the space.
	AllowSecret(ctx context.Context, a SecretAllow) (*SecretAllow, error)
	// SecretAllowlist lists the space's allowed values, oldest first.
	SecretAllowlist(ctx context.Context, space smriti.ID) ([]SecretAllow, error)
	// RemoveSecretAllow takes a value off the allowlist; ENOTFOUND when it
	// is not on it, EFORBIDDEN unless the caller owns the space.
	RemoveSecretAllow(ctx context.Context, space smriti.ID, rule, fingerprint string) error
}

// StoredSecret is a secret found in something already stored (written
// before redaction existed, or imported): where it is and which rule found
// it. The value itself is never reported; its fingerprint (the first 16 hex
// digits of its SHA-256) tells two findings of one value apart.
type StoredSecret struct {
	SpaceID     smriti.ID `json:"space_id" doc:"The space"`
	Kind        string    `json:"kind" enum:"turn,checkpoint,note,claim,proposal,session" doc:"What holds it: a turn, a checkpoint's content, a note, a claim's scope, a proposal's draft or a session's title"`
	ID          smriti.ID `json:"id" doc:"The turn, checkpoint, note, claim, proposal or session"`
	Field       string    `json:"field" doc:"The field: content, summary, decisions[2], artifacts[0].content, text, scope, …"`
	Rule        string    `json:"rule" doc:"The detection rule that found it"`
	Fingerprint string    `json:"fingerprint" doc:"The first 16 hex digits of the secret's SHA-256: names the value without holding it"`
}

// SecretScan is what a scan read: how many of each kind of record, across
// how many spaces, and how many secrets it found in them.
type SecretScan struct {
	Spaces      int `json:"spaces" doc:"Spaces scanned"`
	Checkpoints int `json:"checkpoints" doc:"Checkpoints scanned (their content and notes)"`
	Sessions    int `json:"sessions" doc:"Sessions scanned (their titles)"`
	Turns       int `json:"turns" doc:"Turns scanned"`
	Claims      int `json:"claims" doc:"Claims scanned"`
	Proposals   int `json:"proposals" doc:"Proposals scanned"`
	Found       int `json:"found" doc:"Secrets found"`
}
