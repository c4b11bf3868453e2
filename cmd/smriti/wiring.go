package main

import (
	"log/slog"

	"smriti"
	"smriti/httpapi"
	"smriti/mcp"
	"smriti/store"
)

// apiConfig is the HTTP API over db, providers and the coordinator, with
// the MCP tools at /mcp calling the same services in-process.
func apiConfig(db *store.Store, providers smriti.Providers, logger *slog.Logger, coord *smriti.Coordinator) httpapi.Config {
	tools := mcp.HTTPHandler(mcp.Config{Ops: &mcp.Services{Store: db, Providers: providers, Briefs: coord, WorktreeManager: coord},
		StatusOf: httpapi.StatusOf, Version: version})
	return httpapi.Config{Backend: db, Providers: providers, Logger: logger, Version: version, Commit: commit,
		Coordinator: coord, MCP: tools}
}
