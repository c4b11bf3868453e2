package main

import (
	"log/slog"

	"smriti"
	"smriti/httpapi"
	"smriti/mcp"
	"smriti/store"
)

// apiConfig is the HTTP API over db and providers, with the MCP tools at
// /mcp calling the same services in-process.
func apiConfig(db *store.Store, providers smriti.Providers, logger *slog.Logger) httpapi.Config {
	tools := mcp.HTTPHandler(mcp.Config{Ops: &mcp.Services{Store: db, Providers: providers}, StatusOf: httpapi.StatusOf, Version: version})
	return httpapi.Config{Backend: db, Providers: providers, Logger: logger, Version: version, Commit: commit, MCP: tools}
}
