package records

import "smriti"

// Writer takes a space's records in bundle order, one at a time.
type Writer interface {
	Write(rec BundleRecord) error
}

// Reader gives a space's records in bundle order, each checked; io.EOF
// after the end record.
type Reader interface {
	Next() (*BundleRecord, error)
}

// SizedReader is a Reader that knows how many bytes of its input the
// record Next returned last took, so what reads ahead of a writer can hold
// a bounded number of bytes, not only of records.
type SizedReader interface {
	Reader
	LastSize() int
}

// Remapper gives an imported space's rows new ids and its checkpoints new
// hashes, keeping the lineage (an import "as new").
type Remapper interface {
	// ID returns the new id for old, choosing one the first time.
	ID(old smriti.ID) smriti.ID
	// Opt maps an optional id: nil stays nil.
	Opt(old *smriti.ID) *smriti.ID
	// Checkpoint rewrites c with new ids and its new hash.
	Checkpoint(c *smriti.Checkpoint)
}

// Import is a space's records for the store to write in one transaction.
// The store may run its transaction more than once, so it asks for the
// records, and for a remapping, afresh each time.
type Import struct {
	// Open reads the records from the first one after the header.
	Open func() (Reader, error)
	// Logged is how many checkpoints and turns the records hold.
	Logged int
	// Remap, when set, starts a remapping: the import is "as new".
	Remap func() Remapper
}
