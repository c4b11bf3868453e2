package portability

import "smriti/records"

// The records of a bundle are the store's vocabulary (package records);
// these names are theirs, kept where the format is.

// Bundle record types.
const (
	RecordHeader     = records.RecordHeader
	RecordSpace      = records.RecordSpace
	RecordCheckpoint = records.RecordCheckpoint
	RecordSession    = records.RecordSession
	RecordTurn       = records.RecordTurn
	RecordClaim      = records.RecordClaim
	RecordReceipt    = records.RecordReceipt
	RecordProposal   = records.RecordProposal
	RecordEnd        = records.RecordEnd
)

// Bundle records (see records.BundleRecord).
type (
	BundleRecord      = records.BundleRecord
	BundleHeader      = records.BundleHeader
	BundleCounts      = records.BundleCounts
	BundleSpace       = records.BundleSpace
	BundleCheckpoint  = records.BundleCheckpoint
	BundleItem        = records.BundleItem
	BundleNote        = records.BundleNote
	BundleSession     = records.BundleSession
	BundleAgentSource = records.BundleAgentSource
	BundleTurn        = records.BundleTurn
	BundleClaim       = records.BundleClaim
	BundleReceipt     = records.BundleReceipt
	BundleProposal    = records.BundleProposal
)

// The format's reader, writer and remapping are what the store is handed.
var (
	_ records.Writer   = (*BundleWriter)(nil)
	_ records.Reader   = (*BundleReader)(nil)
	_ records.Remapper = (*BundleRemap)(nil)
)
