// Package portability holds Smriti's file formats: the space bundle
// (reader, writer, verification, id remapping), chat exports (ChatGPT,
// Claude, markdown and plain-text transcripts), coding-agent transcripts
// (Claude Code, Codex) and their importers. It imports the domain and
// intelligence (to draft a checkpoint from an imported conversation).
package portability
