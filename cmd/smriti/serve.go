package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/store"
)

type serveOptions struct {
	addr, db, config, dotenv, logFormat string
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP API and web workspace",
		Long: `Run the HTTP API (and the web workspace) on an embedded SQLite database by
default, or on PostgreSQL when --db is a postgres:// URL. Migrations run at
start. With no provider key configured, chat and background intelligence use
the deterministic offline mock.

Environment: SMRITI_ADDR, SMRITI_DB, SMRITI_CONFIG, and the provider variables
(OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, SMRITI_GENERIC_API_URL, …).`,
		Example: `  smriti serve
  smriti serve --addr 0.0.0.0:8000 --db postgres://smriti@db/smriti`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", envOr("SMRITI_ADDR", "127.0.0.1:8000"), "listen address (env SMRITI_ADDR)")
	f.StringVar(&o.db, "db", envOr("SMRITI_DB", defaultDB()), "database: a file path or sqlite:PATH, or a postgres:// URL (env SMRITI_DB)")
	f.StringVar(&o.config, "config", envOr("SMRITI_CONFIG", "providers.yaml"), "providers YAML (env SMRITI_CONFIG; ignored when missing)")
	f.StringVar(&o.dotenv, "env-file", ".env", "a .env file with provider settings (ignored when missing)")
	f.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	return cmd
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// defaultDB is $XDG_DATA_HOME/smriti/smriti.db (~/.local/share/smriti/smriti.db).
func defaultDB() string {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "smriti.db"
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "smriti", "smriti.db")
}

func serve(ctx context.Context, o serveOptions) error {
	var handler slog.Handler
	if o.logFormat == "json" {
		handler = slog.NewJSONHandler(os.Stderr, nil)
	} else {
		handler = slog.NewTextHandler(os.Stderr, nil)
	}
	logger := slog.New(handler)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := store.Open(ctx, o.db, logger)
	if err != nil {
		return fmt.Errorf("open database %s: %w", redactDSN(o.db), err)
	}
	defer db.Close()

	cfg, err := provider.Load(provider.LoadOptions{YAMLPath: o.config, DotEnvPath: o.dotenv, Getenv: os.Getenv})
	if err != nil {
		return fmt.Errorf("load provider configuration: %w", err)
	}
	var api *httpapi.Server
	providers := provider.New(cfg, provider.WithLogger(logger), provider.WithObserver(
		func(name, model, outcome string, usage smriti.Usage, elapsed time.Duration) {
			if api != nil {
				api.ObserveProviderCall(name, model, outcome, usage, elapsed.Seconds())
			}
		}))
	coord := &smriti.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Now: smriti.Now, Root: worktreeRoot()}
	api = httpapi.New(apiConfig(db, providers, logger, coord))

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another server running? choose another --addr)", o.addr, err)
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	_, bg := providers.Status()
	logger.Info("smriti serving", "url", "http://"+ln.Addr().String(), "database", db.Engine(), "dsn", redactDSN(o.db),
		"chat_provider", providers.DefaultProvider(), "background", bg.Provider, "background_mock", bg.UsingMock, "version", version)
	if bg.UsingMock {
		logger.Warn("no LLM provider configured: chat and drafting use the offline mock; set OPENAI_API_KEY or ANTHROPIC_API_KEY to use a real model")
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// redactDSN hides a password in a database URL.
func redactDSN(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if at := strings.Index(dsn[i+3:], "@"); at >= 0 {
			userinfo := dsn[i+3 : i+3+at]
			if u, _, ok := strings.Cut(userinfo, ":"); ok {
				return dsn[:i+3] + u + ":***" + dsn[i+3+at:]
			}
		}
	}
	return dsn
}

// worktreeRoot is where worktrees go when a request names no path:
// $SMRITI_WORKTREE_ROOT, else ~/.smriti/worktrees.
func worktreeRoot() string {
	if root := os.Getenv("SMRITI_WORKTREE_ROOT"); root != "" {
		return root
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".smriti", "worktrees")
}
