package store

import (
	"errors"
	"io"
	"testing"

	"smriti/records"
)

// sizedRecords gives n turn records of the given sizes and notes the most
// bytes the read-ahead held whenever it asked for another.
type sizedRecords struct {
	sizes   []int
	i, last int
	// start is closed once ra is set.
	start   chan struct{}
	ra      *readAhead
	maxHeld int
}

func (s *sizedRecords) Next() (*records.BundleRecord, error) {
	<-s.start
	if s.ra != nil {
		s.ra.mu.Lock()
		s.maxHeld = max(s.maxHeld, s.ra.held)
		s.ra.mu.Unlock()
	}
	if s.i == len(s.sizes) {
		return nil, io.EOF
	}
	s.last = s.sizes[s.i]
	s.i++
	return &records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{Seq: int64(s.i)}}, nil
}

func (s *sizedRecords) LastSize() int { return s.last }

// TestReadAheadHoldsABoundedNumberOfBytes: records are read ahead up to the
// budget of their bytes (one larger than it alone), all arrive in order,
// and closing midway lets go of a reader waiting for room.
func TestReadAheadHoldsABoundedNumberOfBytes(t *testing.T) {
	sizes := []int{400, 300, 200, 1500, 100, 100, 100, 900, 50}
	src := &sizedRecords{sizes: sizes, start: make(chan struct{})}
	ra := newReadAhead(src, 64, 1000)
	src.ra = ra
	close(src.start)
	for i := range sizes {
		rec, err := ra.Next()
		if err != nil || rec.Turn.Seq != int64(i+1) {
			t.Fatalf("record %d: %v, %v", i, rec, err)
		}
	}
	if _, err := ra.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
	ra.close()
	if src.maxHeld > 1500 {
		t.Fatalf("the read-ahead held %d bytes, want at most the budget or one record", src.maxHeld)
	}

	open := make(chan struct{})
	close(open)
	stuck := newReadAhead(&sizedRecords{sizes: []int{800, 800, 800}, start: open}, 64, 1000)
	if _, err := stuck.Next(); err != nil {
		t.Fatal(err)
	}
	stuck.close()
}
