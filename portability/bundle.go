package portability

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"smriti"
	"time"

	"smriti/internal/nonnil"
)

// A space bundle carries one space from one server to another: gzip'd JSON
// Lines, one record per line, in this order — header, space, checkpoints
// (parents before children, each with its notes), then each session followed
// by its turns, then the claims, then the proposals, then an end record
// with the counts. docs/bundle-format.md
// describes it field by field.
const (
	bundleFormat  = "smriti-space-bundle"
	bundleVersion = 1
	// maxBundleLine bounds one decoded record.
	maxBundleLine = 64 << 20
)

// Bundle record types.
const (
	RecordHeader     = "header"
	RecordSpace      = "space"
	RecordCheckpoint = "checkpoint"
	RecordSession    = "session"
	RecordTurn       = "turn"
	RecordClaim      = "claim"
	RecordProposal   = "proposal"
	RecordEnd        = "end"
)

// BundleRecord is one line of a bundle: its type and the one field that
// type fills.
type BundleRecord struct {
	Type       string            `json:"type"`
	Header     *BundleHeader     `json:"header,omitempty"`
	Space      *BundleSpace      `json:"space,omitempty"`
	Checkpoint *BundleCheckpoint `json:"checkpoint,omitempty"`
	Session    *BundleSession    `json:"session,omitempty"`
	Turn       *BundleTurn       `json:"turn,omitempty"`
	Claim      *BundleClaim      `json:"claim,omitempty"`
	Receipt    *BundleReceipt    `json:"receipt,omitempty"`
	Proposal   *BundleProposal   `json:"proposal,omitempty"`
	End        *BundleCounts     `json:"end,omitempty"`
}

// BundleHeader names the format and its version.
type BundleHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// BundleCounts closes a bundle, so a cut-off one is recognised.
type BundleCounts struct {
	Checkpoints int `json:"checkpoints" doc:"Checkpoints in the bundle"`
	Notes       int `json:"notes" doc:"Checkpoint notes in the bundle"`
	Sessions    int `json:"sessions" doc:"Sessions in the bundle"`
	Turns       int `json:"turns" doc:"Turns in the bundle"`
	Claims      int `json:"claims" doc:"Claims in the bundle"`
	Receipts    int `json:"receipts,omitempty" doc:"Compaction receipts in the bundle (left out when none)"`
	// Proposals is absent from bundles that hold none (and from bundles
	// written before proposals existed).
	Proposals int `json:"proposals,omitempty" doc:"Proposals in the bundle"`
}

// BundleSpace is the space record.
type BundleSpace struct {
	ID          smriti.ID      `json:"id"`
	Slug        *string        `json:"slug"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	ProjectRoot *string        `json:"project_root"`
	Metadata    map[string]any `json:"metadata"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// BundleCheckpoint is a checkpoint record with its notes.
type BundleCheckpoint struct {
	ID            smriti.ID         `json:"id"`
	CommitHash    string            `json:"commit_hash"`
	ParentID      *smriti.ID        `json:"parent_id"`
	MergeParentID *smriti.ID        `json:"merge_parent_id"`
	BranchName    string            `json:"branch_name"`
	AuthorAgent   *string           `json:"author_agent"`
	AuthorType    string            `json:"author_type"`
	ProjectRoot   *string           `json:"project_root"`
	Message       string            `json:"message"`
	Objective     string            `json:"objective"`
	Summary       string            `json:"summary"`
	Decisions     []string          `json:"decisions"`
	Assumptions   []string          `json:"assumptions"`
	Tasks         []smriti.Task     `json:"tasks"`
	OpenQuestions []string          `json:"open_questions"`
	Entities      []string          `json:"entities"`
	Artifacts     []smriti.Artifact `json:"artifacts"`
	ContextBlob   map[string]any    `json:"context_blob"`
	RawSourceText *string           `json:"raw_source_text"`
	Metadata      map[string]any    `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	Notes         []BundleNote      `json:"notes"`
	// HashVersion 2 checkpoints carry their items (their hash covers them);
	// a version 1 checkpoint has none and gets them derived on import.
	HashVersion int          `json:"hash_version,omitempty"`
	Items       []BundleItem `json:"items,omitempty"`
	// LogOrder is the checkpoint's place among its space's checkpoints and
	// turns in log order (0 first; see BundleTurn.LogOrder).
	LogOrder *int64 `json:"log_order,omitempty"`
}

// BundleItem is an item of a checkpoint, as stored.
type BundleItem struct {
	ID         string             `json:"id"`
	Kind       smriti.ItemKind    `json:"kind"`
	Text       string             `json:"text"`
	Status     string             `json:"status"`
	Supersedes []string           `json:"supersedes"`
	Origin     smriti.ItemOrigin  `json:"origin"`
	Change     *smriti.ItemChange `json:"change"`
	Refs       []smriti.ItemRef   `json:"refs,omitempty"`
}

// BundleNote is a note of a checkpoint.
type BundleNote struct {
	ID        smriti.ID `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	Kind      string    `json:"kind"`
	CreatedAt time.Time `json:"created_at"`
}

// BundleSession is a session record; its turns follow it.
type BundleSession struct {
	ID                     smriti.ID      `json:"id"`
	Title                  string         `json:"title"`
	ActiveProvider         string         `json:"active_provider"`
	ActiveModel            string         `json:"active_model"`
	SeededCheckpointID     *smriti.ID     `json:"seeded_checkpoint_id"`
	ForkedFromCheckpointID *smriti.ID     `json:"forked_from_checkpoint_id"`
	BranchName             string         `json:"branch_name"`
	BranchDisposition      string         `json:"branch_disposition"`
	Metadata               map[string]any `json:"metadata"`
	CreatedAt              time.Time      `json:"created_at"`
	UpdatedAt              time.Time      `json:"updated_at"`
	// MountedCheckpointID and MountBaseSeq are the session's mount
	// (smriti.Mount); absent when it has none.
	MountedCheckpointID *smriti.ID `json:"mounted_checkpoint_id,omitempty"`
	MountBaseSeq        *int64     `json:"mount_base_seq,omitempty"`
	// Agent names the coding-agent transcript the session was imported
	// from, so importing that transcript again adds only its new entries.
	Agent *BundleAgentSource `json:"agent,omitempty"`
}

// BundleAgentSource is the coding-agent transcript a session holds: its
// format, the agent's own session key, and the keys of the entries already
// written as turns.
type BundleAgentSource struct {
	Source     string    `json:"source"`
	SessionKey string    `json:"session_key"`
	CreatedAt  time.Time `json:"created_at"`
	EntryKeys  []string  `json:"entry_keys"`
}

// BundleTurn is a turn record.
type BundleTurn struct {
	ID        smriti.ID      `json:"id"`
	SessionID smriti.ID      `json:"session_id"`
	Seq       int64          `json:"sequence_number"`
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Provider  string         `json:"provider"`
	Model     string         `json:"model"`
	Tokens    int            `json:"tokens"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
	// LogOrder is the turn's place among its space's checkpoints and turns
	// in log order (0 first). Records come checkpoints first, so without it
	// an import would log every turn after every checkpoint, and "turns
	// after this checkpoint" would take in turns from before it. Absent in
	// bundles written before it existed: records are then logged in order.
	LogOrder *int64 `json:"log_order,omitempty"`
}

// BundleClaim is a claim record. The worktree a claim was made from is a
// path on one machine and is not carried.
type BundleClaim struct {
	ID               smriti.ID  `json:"id"`
	SessionID        *smriti.ID `json:"session_id"`
	Agent            string     `json:"agent"`
	BranchName       string     `json:"branch_name"`
	BaseCheckpointID *smriti.ID `json:"base_checkpoint_id"`
	Scope            string     `json:"scope"`
	TaskID           *string    `json:"task_id"`
	Intent           string     `json:"intent"`
	Status           string     `json:"status"`
	ClaimedAt        time.Time  `json:"claimed_at"`
	ExpiresAt        time.Time  `json:"expires_at"`
	// FinishedAt is when a finished claim ended; LeaseSeconds the lease a
	// heartbeat renews it by. Absent when unset.
	FinishedAt   *time.Time `json:"finished_at,omitempty"`
	LeaseSeconds *int64     `json:"lease_seconds,omitempty"`
}

// SpaceExporter writes and reads space bundles.
type SpaceExporter interface {
	// ExportSpace writes the space as a bundle to w from one consistent
	// snapshot. ENOTFOUND for a space the caller may not see.
	ExportSpace(ctx context.Context, id smriti.ID, w *BundleWriter) error
	// ImportSpace recreates the bundle's space for the caller in one
	// transaction after checking the whole bundle (VerifyBundle): nothing is
	// written unless all of it is. Without asNew the ids and hashes are the
	// bundle's (ECONFLICT when the space or any of its ids exists); with
	// asNew every id is new and every hash recomputed, the lineage kept.
	// EINVALID / EUNPROCESSABLE for a bundle that cannot be read or does not
	// verify, naming the record.
	ImportSpace(ctx context.Context, r io.ReadSeeker, asNew bool) (*smriti.Space, error)
}

// CheckpointOf turns a checkpoint record into the domain's checkpoint.
func (b *BundleCheckpoint) CheckpointOf(spaceID smriti.ID) *smriti.Checkpoint {
	return &smriti.Checkpoint{
		ID: b.ID, SpaceID: spaceID, Hash: b.CommitHash, ParentID: b.ParentID, MergeParentID: b.MergeParentID,
		BranchName: b.BranchName, AuthorAgent: b.AuthorAgent, AuthorType: b.AuthorType, ProjectRoot: b.ProjectRoot,
		Content: smriti.Content{Message: b.Message, Objective: b.Objective, Summary: b.Summary, Decisions: nonnil.Slice(b.Decisions),
			Assumptions: nonnil.Slice(b.Assumptions), Tasks: nonnil.Slice(b.Tasks), OpenQuestions: nonnil.Slice(b.OpenQuestions),
			Entities: nonnil.Slice(b.Entities), Artifacts: nonnil.Slice(b.Artifacts)},
		ContextBlob: nonnil.Map(b.ContextBlob), RawSourceText: b.RawSourceText, Metadata: nonnil.Map(b.Metadata),
		CreatedAt: b.CreatedAt.UTC(), HashVersion: b.HashVersion, Items: itemsOfBundle(b),
	}
}

// itemsOfBundle is the checkpoint's items; nil for a version 1 record.
func itemsOfBundle(b *BundleCheckpoint) []smriti.Item {
	if b.HashVersion < 2 {
		return nil
	}
	out := make([]smriti.Item, 0, len(b.Items))
	for _, it := range b.Items {
		item := smriti.Item{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.Status, Supersedes: it.Supersedes, Origin: it.Origin, Change: it.Change, Refs: it.Refs}
		out = append(out, item)
	}
	return out
}

// BundleCheckpointOf turns a checkpoint (with its notes) into its record.
func BundleCheckpointOf(c *smriti.Checkpoint) *BundleCheckpoint {
	b := &BundleCheckpoint{
		ID: c.ID, CommitHash: c.Hash, ParentID: c.ParentID, MergeParentID: c.MergeParentID, BranchName: c.BranchName,
		AuthorAgent: c.AuthorAgent, AuthorType: c.AuthorType, ProjectRoot: c.ProjectRoot, Message: c.Message,
		Objective: c.Objective, Summary: c.Summary, Decisions: nonnil.Slice(c.Decisions), Assumptions: nonnil.Slice(c.Assumptions),
		Tasks: nonnil.Slice(c.Tasks), OpenQuestions: nonnil.Slice(c.OpenQuestions), Entities: nonnil.Slice(c.Entities),
		Artifacts: nonnil.Slice(c.Artifacts), ContextBlob: nonnil.Map(c.ContextBlob), RawSourceText: c.RawSourceText,
		Metadata: nonnil.Map(c.Metadata), CreatedAt: c.CreatedAt.UTC(), Notes: []BundleNote{},
	}
	if c.HashVersion >= 2 {
		b.HashVersion = c.HashVersion
		b.Items = make([]BundleItem, 0, len(c.Items))
		for _, it := range c.Items {
			b.Items = append(b.Items, BundleItem{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.StatusOrOpen(),
				Supersedes: nonnil.Slice(it.Supersedes), Origin: it.Origin, Change: it.Change, Refs: it.Refs})
		}
	}
	for _, n := range c.Notes {
		b.Notes = append(b.Notes, BundleNote{ID: n.ID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt.UTC()})
	}
	return b
}

// BundleWriter writes a bundle. Its output is a function of the records
// alone (no time stamp in the gzip header, map keys sorted), so exporting
// the same space twice, from either engine, gives the same bytes.
type BundleWriter struct {
	gz  *gzip.Writer
	buf *bufio.Writer
	enc *json.Encoder
}

// NewBundleWriter starts a bundle on w and writes its header.
func NewBundleWriter(w io.Writer) (*BundleWriter, error) {
	buf := bufio.NewWriterSize(w, 64<<10)
	gz, _ := gzip.NewWriterLevel(buf, gzip.DefaultCompression)
	enc := json.NewEncoder(gz)
	enc.SetEscapeHTML(false)
	bw := &BundleWriter{gz: gz, buf: buf, enc: enc}
	return bw, bw.Write(BundleRecord{Type: RecordHeader, Header: &BundleHeader{Format: bundleFormat, Version: bundleVersion}})
}

// Write appends one record.
func (w *BundleWriter) Write(rec BundleRecord) error {
	return w.enc.Encode(rec)
}

// Close ends the gzip stream and flushes it (it does not close the
// underlying writer).
func (w *BundleWriter) Close() error {
	if err := w.gz.Close(); err != nil {
		return err
	}
	return w.buf.Flush()
}

// BundleReader reads a bundle record by record and checks it as it goes:
// the header's format and version, the order of the records, that every
// reference (parent, fork source, a turn's session) points to an earlier
// record of the same bundle, that each session's turns are numbered 0, 1, 2 …,
// that every checkpoint's hash is the one ComputeHash gives from its content
// and its parents' hashes, and that the end record's counts match. Any
// failure is an *Error naming the record.
type BundleReader struct {
	dec          *json.Decoder
	gz           *gzip.Reader
	line         int
	stage        int
	space        *BundleSpace
	hashes       map[smriti.ID]string
	sessions     map[smriti.ID]bool
	curSession   *smriti.ID
	nextSeq      int64
	counts       BundleCounts
	ids          map[smriti.ID]bool
	done         bool
	VerifyHashes bool
}

// NewBundleReader opens a bundle and reads its header. EUNPROCESSABLE for a
// format or version it does not know; EINVALID for data that is not a gzip'd
// bundle.
func NewBundleReader(r io.Reader) (*BundleReader, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, "not a space bundle: the data is not gzip-compressed (%v)", err)
	}
	gz.Multistream(false)
	br := &BundleReader{dec: json.NewDecoder(bufio.NewReaderSize(&lineLimit{r: gz}, 64<<10)), gz: gz,
		hashes: map[smriti.ID]string{}, sessions: map[smriti.ID]bool{}, ids: map[smriti.ID]bool{}, VerifyHashes: true}
	rec, err := br.decode()
	if err != nil {
		return nil, err
	}
	if rec.Type != RecordHeader || rec.Header == nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a space bundle: the first record is not a header")
	}
	if rec.Header.Format != bundleFormat {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a space bundle: format %q, want %q", smriti.Truncate(rec.Header.Format, 64), bundleFormat)
	}
	if rec.Header.Version != bundleVersion {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "unsupported bundle version %d: this server reads version %d", rec.Header.Version, bundleVersion)
	}
	return br, nil
}

// lineLimit stops a single record from growing without bound.
type lineLimit struct {
	r   io.Reader
	run int
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.run = 0
		} else if l.run++; l.run > maxBundleLine {
			return 0, smriti.Errorf(smriti.EUNPROCESSABLE, "a bundle record is longer than %d bytes", maxBundleLine)
		}
	}
	return n, err
}

func (br *BundleReader) decode() (*BundleRecord, error) {
	br.line++
	var rec BundleRecord
	if err := br.dec.Decode(&rec); err != nil {
		var de *smriti.Error
		switch {
		case errors.As(err, &de):
			return nil, de
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, smriti.Errorf(smriti.EINVALID, "the bundle is truncated: it ends at record %d without its end record", br.line)
		case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
			return nil, smriti.Errorf(smriti.EINVALID, "the bundle is corrupt: %v", err)
		}
		return nil, smriti.Errorf(smriti.EINVALID, "record %d of the bundle is not valid: %v", br.line, jsonProblem(err))
	}
	return &rec, nil
}

// Space is the bundle's space record (nil before it has been read).
func (br *BundleReader) Space() *BundleSpace { return br.space }

// Next returns the next record after the header, checked; io.EOF after the
// end record (whose counts it has checked).
func (br *BundleReader) Next() (*BundleRecord, error) {
	if br.done {
		return nil, io.EOF
	}
	rec, err := br.decode()
	if err != nil {
		return nil, err
	}
	if err := br.check(rec); err != nil {
		return nil, err
	}
	if rec.Type == RecordEnd {
		br.done = true
		// Nothing may follow the end record but the end of the stream.
		var extra json.RawMessage
		if err := br.dec.Decode(&extra); !errors.Is(err, io.EOF) {
			if err == nil {
				return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "the bundle has records after its end record")
			}
			return nil, smriti.Errorf(smriti.EINVALID, "the bundle is corrupt after its end record: %v", err)
		}
	}
	return rec, nil
}

// VerifyBundle reads a whole bundle, checking it as BundleReader does, and
// returns its space and counts.
func VerifyBundle(r io.Reader) (*BundleSpace, *BundleCounts, error) {
	br, err := NewBundleReader(r)
	if err != nil {
		return nil, nil, err
	}
	for {
		rec, err := br.Next()
		if errors.Is(err, io.EOF) {
			return br.space, &br.counts, nil
		}
		if err != nil {
			return nil, nil, err
		}
		_ = rec
	}
}

// BundleRemap gives a bundle's rows new ids for an import "as new" and
// recomputes every checkpoint hash, keeping the lineage: parents, merge
// parents, fork sources and the sessions named in checkpoint metadata map
// to their new ids.
type BundleRemap struct {
	ids    map[smriti.ID]smriti.ID
	hashes map[smriti.ID]string // new id → new hash
}

// NewBundleRemap starts a remapping.
func NewBundleRemap() *BundleRemap {
	return &BundleRemap{ids: map[smriti.ID]smriti.ID{}, hashes: map[smriti.ID]string{}}
}

// ID returns the new id for old, choosing one the first time.
func (m *BundleRemap) ID(old smriti.ID) smriti.ID {
	if n, ok := m.ids[old]; ok {
		return n
	}
	n := smriti.NewID()
	m.ids[old] = n
	return n
}

// Opt maps an optional id: nil stays nil.
func (m *BundleRemap) Opt(old *smriti.ID) *smriti.ID {
	if old == nil {
		return nil
	}
	n := m.ID(*old)
	return &n
}

// Checkpoint rewrites c (already in the new space) with new ids and its new
// hash.
func (m *BundleRemap) Checkpoint(c *smriti.Checkpoint) {
	c.ID, c.ParentID, c.MergeParentID = m.ID(c.ID), m.Opt(c.ParentID), m.Opt(c.MergeParentID)
	meta := map[string]any{}
	for k, v := range c.Metadata {
		meta[k] = v
	}
	if s, ok := meta["session_id"].(string); ok {
		if old, err := smriti.ParseID("session_id", s); err == nil {
			meta["session_id"] = m.ID(old).String()
		}
	}
	if st, ok := meta["source_turns"].(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range st {
			cp[k] = v
		}
		if s, ok := cp["session_id"].(string); ok {
			if old, err := smriti.ParseID("session_id", s); err == nil {
				cp["session_id"] = m.ID(old).String()
			}
		}
		meta["source_turns"] = cp
	}
	c.Metadata = meta
	for i := range c.Items {
		it := &c.Items[i]
		it.Origin.CheckpointID, it.Origin.SessionID = m.Opt(it.Origin.CheckpointID), m.Opt(it.Origin.SessionID)
		if it.Change != nil {
			ch := *it.Change
			ch.Source.SessionID = m.Opt(ch.Source.SessionID)
			it.Change = &ch
		}
	}
	ph, mh := "", ""
	if c.ParentID != nil {
		ph = m.hashes[*c.ParentID]
	}
	if c.MergeParentID != nil {
		mh = m.hashes[*c.MergeParentID]
	}
	c.Hash = c.ComputeHash(ph, mh)
	m.hashes[c.ID] = c.Hash
}
