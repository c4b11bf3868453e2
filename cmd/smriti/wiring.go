package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"smriti"

	"smriti/app"
	"smriti/client"
	"smriti/gitremote"
	"smriti/httpapi"
	"smriti/intelligence"
	"smriti/mcp"
	"smriti/remote"
	"smriti/store"
	"smriti/tokenizer"
)

// apiConfig is the HTTP API over db, providers and the coordinator, with
// the MCP tools at /mcp calling the same use cases in-process: the App is
// built once here, with the LLM gate gate configures, and shared by both.
func apiConfig(db *store.Store, providers intelligence.Providers, logger *slog.Logger, coord *app.Coordinator, metrics *httpapi.Metrics, gate app.GateConfig) httpapi.Config {
	a := app.New(app.Config{Store: db, Providers: providers, Tokens: tokenizer.Counter{}, Now: db.Now, Coordinator: coord, Gate: gate, Dialer: client.Dial,
		GitDialer: gitDialer(gate)})
	tools := mcp.HTTPHandler(mcp.Config{Ops: a, StatusOf: client.StatusOf, Version: version, GitState: serverGitState(coord)})
	return httpapi.Config{Backend: db, App: a, Logger: logger, Version: version, Commit: commit,
		MCP: tools, MCPSessionIdle: mcp.SessionIdle, Metrics: metrics}
}

// stateReader is a git adapter that reads a work tree's state (gitcli's).
type stateReader interface {
	State(ctx context.Context, dir string) (*smriti.GitState, error)
}

// serverGitState is how the in-process MCP tools read the git state of a
// checkpoint's project_root: with the coordinator's git, which already runs
// in the project roots clients name (worktrees are opened in them), and only
// for absolute paths — a relative one would name a directory of the server's.
// Nil when the server has no git.
func serverGitState(coord *app.Coordinator) func(ctx context.Context, dir string) (*smriti.GitState, error) {
	if coord == nil {
		return nil
	}
	g, ok := coord.Git.(stateReader)
	if !ok {
		return nil
	}
	return func(ctx context.Context, dir string) (*smriti.GitState, error) {
		if !filepath.IsAbs(dir) {
			return nil, smriti.Errorf(smriti.EINVALID, "project_root must be an absolute path: %s", dir)
		}
		return g.State(ctx, dir)
	}
}

// gitDialer reaches git repositories used as remotes. Git runs as the
// server, with its files and its credentials (ssh keys, credential
// helpers): on a server several people sign in to (auth mode, where the
// gate asks for roles) that would lend them to every user, so there git
// remotes are off unless the operator sets SMRITI_GIT_REMOTES=on.
func gitDialer(gate app.GateConfig) remote.Dialer {
	if gate.Roles != nil && os.Getenv("SMRITI_GIT_REMOTES") != "on" {
		return nil
	}
	return gitremote.New(gitCacheDir()).Dial
}

// gitCacheDir is the bare repository through which this server reaches git
// repositories used as remotes: $SMRITI_GIT_CACHE, else git-cache beside
// the default database in the data directory. It is created on first use.
func gitCacheDir() string {
	if dir := os.Getenv("SMRITI_GIT_CACHE"); dir != "" {
		return dir
	}
	return filepath.Join(filepath.Dir(defaultDB()), "git-cache")
}
