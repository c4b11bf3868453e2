package portability

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
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

// bundleLevel is the bundle's gzip level. Compression is a good part of
// an export's CPU (a clone's answering server spends it while the asker
// waits), and the fastest level takes half the time of the default for
// output at most about twice as large; the bytes are gzip either way.
const bundleLevel = gzip.BestSpeed

// SpaceStore is the storage a space bundle is written from and read into.
type SpaceStore interface {
	// ExportSpace writes the space's records to w from one consistent
	// snapshot. ENOTFOUND for a space the caller may not see.
	ExportSpace(ctx context.Context, id smriti.ID, w records.Writer) error
	// ImportRecords recreates the records' space for the caller in one
	// transaction: nothing is written unless all of it is. Without a
	// remapping the ids and hashes are the records' (ECONFLICT when the
	// space or any of its ids exists).
	ImportRecords(ctx context.Context, in records.Import) (*smriti.Space, error)
}

// ImportSpace recreates the bundle's space for the caller in one
// transaction: nothing is written unless all of it is. Without asNew the
// ids and hashes are the bundle's (ECONFLICT when the space or any of its
// ids exists); with asNew every id is new and every hash recomputed, the
// lineage kept. EINVALID / EUNPROCESSABLE for a bundle that cannot be read
// or does not verify, naming the record. Every record is decoded once,
// checked as the store writes it (the checks of VerifyBundle), and a
// record that fails refuses the whole import; a first pass over the
// bundle (ScanBundle) only finds how many records it holds.
func ImportSpace(ctx context.Context, st SpaceStore, r io.ReadSeeker, asNew bool) (*smriti.Space, error) {
	sp, _, err := ImportScanned(ctx, st, r, ScanBundle(r), asNew)
	return sp, err
}

// ImportScanned is ImportSpace for a bundle whose first pass has been
// made already: counts are what ScanBundle returned for the same bytes (a
// clone scans the bundle as it downloads it). When they are nil the
// bundle is checked whole first (VerifyBundle), so a bundle that is not
// in an export's form is refused naming what is wrong, or imported. The
// bundle is checked as the store writes it, so counts that do not match
// it fail the import with nothing written. It returns what the bundle
// held.
func ImportScanned(ctx context.Context, st SpaceStore, r io.ReadSeeker, counts *BundleCounts, asNew bool) (*smriti.Space, *BundleCounts, error) {
	if counts == nil {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("import: rewind bundle: %w", err)
		}
		var err error
		if _, counts, err = VerifyBundle(r); err != nil {
			return nil, nil, err
		}
	}
	in := records.Import{Logged: counts.Checkpoints + counts.Turns, Open: func() (records.Reader, error) {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("import: rewind bundle: %w", err)
		}
		br, err := NewBundleReader(r)
		if err != nil {
			return nil, err
		}
		return &importGate{Reader: br}, nil
	}}
	if asNew {
		in.Remap = func() records.Remapper { return NewBundleRemap() }
	}
	sp, err := st.ImportRecords(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	return sp, counts, nil
}

// BundleWriter writes a bundle. Its output is a function of the records
// alone (no time stamp in the gzip header, map keys sorted), so exporting
// the same space twice, from either engine, gives the same bytes.
type BundleWriter struct {
	gz    *gzip.Writer
	buf   *bufio.Writer
	enc   *json.Encoder
	lines *lineEncoder
}

// NewBundleWriter starts a bundle on w and writes its header.
func NewBundleWriter(w io.Writer) (*BundleWriter, error) {
	buf := bufio.NewWriterSize(w, 64<<10)
	gz, _ := gzip.NewWriterLevel(buf, bundleLevel)
	enc := json.NewEncoder(gz)
	enc.SetEscapeHTML(false)
	bw := &BundleWriter{gz: gz, buf: buf, enc: enc, lines: newLineEncoder()}
	return bw, bw.Write(BundleRecord{Type: RecordHeader, Header: &BundleHeader{Format: bundleFormat, Version: bundleVersion}})
}

// Write appends one record.
func (w *BundleWriter) Write(rec BundleRecord) error {
	if line, ok := w.lines.encode(&rec); ok {
		_, err := w.gz.Write(line)
		return err
	}
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
	dec          *jsonv1.Decoder
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
	size         int
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
	br := &BundleReader{dec: newRecordDecoder(&lineLimit{r: gz}), gz: gz,
		hashes: map[smriti.ID]string{}, sessions: map[smriti.ID]bool{}, ids: map[smriti.ID]bool{}, VerifyHashes: true}
	rec, err := br.decode()
	if err != nil {
		return nil, err
	}
	if rec.Type != RecordHeader || rec.Header == nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a space bundle: the first record is not a header")
	}
	if rec.Header.Format != bundleFormat {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a space bundle: format %q, want %q", textutil.Truncate(rec.Header.Format, 64), bundleFormat)
	}
	if rec.Header.Version != bundleVersion {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "unsupported bundle version %d: this server reads version %d", rec.Header.Version, bundleVersion)
	}
	return br, nil
}

// newRecordDecoder decodes a stream of records with encoding/json's
// meaning (field names matched without regard to case, invalid UTF-8
// replaced, a later duplicate name winning) in the implementation of
// encoding/json/v2 — the Go team's module, which the standard library
// carries as the jsonv2 experiment and which builds as an alias of it when
// that experiment is on — at under half the CPU: decoding was most of the
// work of reading a bundle, and an import's records are decoded alongside
// the writing of its rows.
func newRecordDecoder(r io.Reader) *jsonv1.Decoder {
	return jsonv1.NewDecoder(r)
}

// lineLimit stops a single record from growing without bound.
type lineLimit struct {
	r   io.Reader
	run int
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	chunk := p[:n]
	if n > maxBundleLine {
		// A line may lie whole inside the chunk: byte by byte.
		for _, b := range chunk {
			if b == '\n' {
				l.run = 0
			} else if l.run++; l.run > maxBundleLine {
				return 0, l.tooLong()
			}
		}
		return n, err
	}
	// Only the line that began before the chunk and the one it ends in
	// can be longer than the chunk.
	if first := bytes.IndexByte(chunk, '\n'); first < 0 {
		l.run += n
	} else {
		if l.run+first > maxBundleLine {
			return 0, l.tooLong()
		}
		l.run = n - bytes.LastIndexByte(chunk, '\n') - 1
	}
	if l.run > maxBundleLine {
		return 0, l.tooLong()
	}
	return n, err
}

func (l *lineLimit) tooLong() error {
	return smriti.Errorf(smriti.EUNPROCESSABLE, "a bundle record is longer than %d bytes", maxBundleLine)
}

func (br *BundleReader) decode() (*BundleRecord, error) {
	br.line++
	var rec BundleRecord
	start := br.dec.InputOffset()
	err := br.dec.Decode(&rec)
	br.size = int(br.dec.InputOffset() - start)
	if err != nil {
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

// LastSize is how many bytes of JSON the record Next returned last took.
func (br *BundleReader) LastSize() int { return br.size }

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
		var extra jsonv1.RawMessage
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
	// Only the ids change: the typed view rewrites the two keys that hold
	// them and leaves the rest of the map as it was.
	cm := smriti.MetaOf(meta)
	var ids smriti.CheckpointMeta
	if cm.SessionID != nil {
		ids.SessionID = m.Opt(cm.SessionID)
	}
	if st := cm.SourceTurns; st != nil && st.SessionID != smriti.NilID {
		moved := *st
		moved.SessionID = m.ID(st.SessionID)
		ids.SourceTurns = &moved
	}
	ids.Into(meta)
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
