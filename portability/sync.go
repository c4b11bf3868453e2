package portability

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"

	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
)

// NewSyncWriter starts a sync stream on w (see records.SyncFormat) and
// writes its header. Close it as a BundleWriter.
func NewSyncWriter(w io.Writer) (*BundleWriter, error) {
	buf := bufio.NewWriterSize(w, 32<<10)
	gz, _ := gzip.NewWriterLevel(buf, gzip.DefaultCompression)
	enc := json.NewEncoder(gz)
	enc.SetEscapeHTML(false)
	bw := &BundleWriter{gz: gz, buf: buf, enc: enc, lines: newLineEncoder()}
	return bw, bw.Write(BundleRecord{Type: RecordHeader, Header: &BundleHeader{Format: records.SyncFormat, Version: records.SyncVersion}})
}

// Flush pushes what was written so far to the underlying writer (a sync
// answer streams: the receiver verifies and stores records as they come).
func (w *BundleWriter) Flush() error {
	if err := w.gz.Flush(); err != nil {
		return err
	}
	return w.buf.Flush()
}

// SyncReader reads a sync stream record by record. It checks the framing —
// the header, that the space record comes first, that nothing follows the
// sync_end record, that a stream cut off before it is reported as cut — and
// leaves the content checks (hashes, parents) to the receiver, which knows
// what it already has. Errors are *smriti.Error naming the record.
type SyncReader struct {
	dec   *json.Decoder
	line  int
	space *BundleSpace
	end   *records.SyncEnd
}

// NewSyncReader opens a sync stream and reads its header and space record.
func NewSyncReader(r io.Reader) (*SyncReader, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, "not a sync stream: the data is not gzip-compressed (%v)", err)
	}
	gz.Multistream(false)
	sr := &SyncReader{dec: json.NewDecoder(bufio.NewReaderSize(&lineLimit{r: gz}, 32<<10))}
	rec, err := sr.decode()
	if err != nil {
		return nil, err
	}
	if rec.Type != RecordHeader || rec.Header == nil || rec.Header.Format != records.SyncFormat {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a sync stream: the first record is not a %s header", records.SyncFormat)
	}
	if rec.Header.Version != records.SyncVersion {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "unsupported sync stream version %d: this server reads version %d", rec.Header.Version, records.SyncVersion)
	}
	if rec, err = sr.decode(); err != nil {
		return nil, err
	}
	if rec.Type != RecordSpace || rec.Space == nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "sync stream record %d: the space record must follow the header", sr.line)
	}
	sr.space = rec.Space
	return sr, nil
}

// Space is the stream's space record.
func (sr *SyncReader) Space() *BundleSpace { return sr.space }

// End is the stream's sync_end record once Next has returned io.EOF.
func (sr *SyncReader) End() *records.SyncEnd { return sr.end }

// Next returns the next checkpoint, session or turn record; io.EOF after
// the sync_end record.
func (sr *SyncReader) Next() (*BundleRecord, error) {
	if sr.end != nil {
		return nil, io.EOF
	}
	rec, err := sr.decode()
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Type == RecordCheckpoint && rec.Checkpoint != nil, rec.Type == RecordSession && rec.Session != nil,
		rec.Type == RecordTurn && rec.Turn != nil:
		return rec, nil
	case rec.Type == records.RecordSyncEnd && rec.SyncEnd != nil:
		var extra json.RawMessage
		if err := sr.dec.Decode(&extra); !errors.Is(err, io.EOF) {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "the sync stream has data after its end record")
		}
		sr.end = rec.SyncEnd
		return nil, io.EOF
	}
	return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "sync stream record %d: unexpected %q record", sr.line, textutil.Truncate(rec.Type, 40))
}

func (sr *SyncReader) decode() (*BundleRecord, error) {
	sr.line++
	var rec BundleRecord
	if err := sr.dec.Decode(&rec); err != nil {
		var de *smriti.Error
		switch {
		case errors.As(err, &de):
			return nil, de
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, smriti.Errorf(smriti.EINVALID, "the sync stream was cut off at record %d, before its end record; run the command again to resume", sr.line)
		case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
			return nil, smriti.Errorf(smriti.EINVALID, "the sync stream is corrupt: %v", err)
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return nil, smriti.Errorf(smriti.EINVALID, "record %d of the sync stream is not valid: %v", sr.line, jsonProblem(err))
		}
		// Anything else is the transport failing under the decoder.
		return nil, smriti.Errorf(smriti.EINVALID, "the sync stream was cut off at record %d (%v); run the command again to resume", sr.line, err)
	}
	return &rec, nil
}
