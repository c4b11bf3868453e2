// Package render writes Smriti's markdown views — the state brief,
// checkpoints, compare, restore, reviews, metrics, worktrees and context
// packs for other tools — the same text for the CLI, the MCP tools and
// ?format=markdown. It imports the domain (smriti, coord) and intelligence
// only; it does no I/O.
package render
