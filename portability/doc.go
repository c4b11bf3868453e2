// Package portability holds Smriti's file formats: the space bundle
// (reader, writer, verification, id remapping), chat exports (ChatGPT,
// Claude, markdown and plain-text transcripts), coding-agent transcripts
// (Claude Code, Codex) and their importers. The records a bundle's lines
// carry are package records' (the store's vocabulary), named here too; the
// store writes and reads records (SpaceStore) and ImportSpace checks a
// bundle whole before handing its records to the store. It imports the
// domain (smriti, coord) and records only: drafting a checkpoint for an
// imported conversation is the use-case layer's, handed in as
// TranscriptImporter.Draft.
package portability
