package main

import (
	"log/slog"

	"smriti/app"
	"smriti/client"
	"smriti/httpapi"
	"smriti/intelligence"
	"smriti/mcp"
	"smriti/store"
	"smriti/tokenizer"
)

// apiConfig is the HTTP API over db, providers and the coordinator, with
// the MCP tools at /mcp calling the same use cases in-process: the App is
// built once here, with the LLM gate gate configures, and shared by both.
func apiConfig(db *store.Store, providers intelligence.Providers, logger *slog.Logger, coord *app.Coordinator, metrics *httpapi.Metrics, gate app.GateConfig) httpapi.Config {
	a := app.New(app.Config{Store: db, Providers: providers, Tokens: tokenizer.Counter{}, Now: db.Now, Coordinator: coord, Gate: gate})
	tools := mcp.HTTPHandler(mcp.Config{Ops: &mcp.Services{App: a}, StatusOf: client.StatusOf, Version: version})
	return httpapi.Config{Backend: db, App: a, Logger: logger, Version: version, Commit: commit,
		MCP: tools, MCPSessionIdle: mcp.SessionIdle, Metrics: metrics}
}
