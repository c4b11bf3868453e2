package main

import (
	"log/slog"

	"smriti/app"
	"smriti/httpapi"
	"smriti/intelligence"
	"smriti/mcp"
	"smriti/store"
	"smriti/tokenizer"
)

// apiConfig is the HTTP API over db, providers and the coordinator, with
// the MCP tools at /mcp calling the same services in-process. The chat and
// intelligence services are built once here and shared by both.
func apiConfig(db *store.Store, providers intelligence.Providers, logger *slog.Logger, coord *app.Coordinator, metrics *httpapi.Metrics) httpapi.Config {
	chat := &app.Chat{Sessions: db, Checkpoints: db, Providers: providers, Now: db.Now, Tokens: tokenizer.Counter{}}
	intel := &intelligence.Intelligence{Sessions: db, Checkpoints: db, Items: db, Providers: providers}
	tools := mcp.HTTPHandler(mcp.Config{Ops: &mcp.Services{Store: db, Providers: providers, Briefs: coord, WorktreeManager: coord,
		Chat: chat, Intelligence: intel}, StatusOf: httpapi.StatusOf, Version: version})
	return httpapi.Config{Backend: db, Providers: providers, Tokens: tokenizer.Counter{}, Logger: logger, Version: version, Commit: commit,
		Coordinator: coord, MCP: tools, MCPSessionIdle: mcp.SessionIdle, Metrics: metrics, Chat: chat, Intelligence: intel}
}
