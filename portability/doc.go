// Package portability holds Smriti's file formats: the space bundle
// (reader, writer, verification, id remapping), chat exports (ChatGPT,
// Claude, markdown and plain-text transcripts), coding-agent transcripts
// (Claude Code, Codex) and their importers. It imports the domain (smriti,
// coord) only: drafting a checkpoint for an imported conversation is the
// use-case layer's, handed in as TranscriptImporter.Draft.
package portability
