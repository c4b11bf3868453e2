// Package records is the vocabulary a space's rows leave and enter storage
// in: the records of a space bundle (one for each line of its file) and
// the conversations and coding-agent entries a transcript import writes,
// with their conversions to and from the domain's types, and the rows a
// whole-store backup carries beside the bundles (accounts, space owners).
// The store reads and writes these; portability turns them into files (the
// bundle's JSON Lines, header, checks and id remapping; the transcript
// readers). It imports the domain (smriti, account) only.
package records
