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
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"smriti/app"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/internal/clock"
	"smriti/internal/memtrim"
	"smriti/provider"
	"smriti/secrets"
	"smriti/store"
	"smriti/web"
)

type serveOptions struct {
	addr, db, config, dotenv, logFormat string
	corsOrigins, allowedHosts           []string
	insecureNoAuth                      bool
	auth                                authOptions
	// keyRetention is how long idempotency keys are honoured.
	keyRetention time.Duration
	// idleRelease is the quiet spell after which memory is handed back (0: never).
	idleRelease time.Duration
	// turnCacheMB bounds the recent-turns cache.
	turnCacheMB int
	// dbOpts tune the PostgreSQL pool (sizes, timeouts, pooler mode, the
	// start-up wait).
	dbOpts store.Options
	// fetchEvery is how often every space's remotes are fetched (0: never).
	fetchEvery time.Duration
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
(OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, SMRITI_GENERIC_API_URL, …).

Git repositories used as remotes are reached with the system git through a
cache repository, SMRITI_GIT_CACHE (default git-cache in the data
directory); with --auth they are refused unless SMRITI_GIT_REMOTES=on, as
git acts with the server's files and credentials.

On PostgreSQL the server keeps the Go runtime's monitor thread polling rather
than sleeping deeply whenever it goes idle (GODEBUG=schedtrace, set by running
itself again): a replica with a few concurrent sends then spends about a third
less CPU per send, for about 100 wakeups a second when idle.
SMRITI_STEADY_MONITOR=on or off decides it on any database.`,
		Example: `  smriti serve
  smriti serve --db postgres://smriti@db/smriti
  smriti serve --cors-origin http://localhost:5173`,
		RunE: func(cmd *cobra.Command, args []string) error {
			steadyMonitor(isPostgres(o.db))
			if err := memoryFlagsFromEnv(cmd, &o); err != nil {
				return err
			}
			return serve(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", envOr("SMRITI_ADDR", "127.0.0.1:8000"), "listen address (env SMRITI_ADDR)")
	f.StringVar(&o.db, "db", envOr("SMRITI_DB", defaultDB()), "database: a file path or sqlite:PATH, or a postgres:// URL (env SMRITI_DB)")
	f.StringVar(&o.config, "config", envOr("SMRITI_CONFIG", "providers.yaml"), "providers YAML (env SMRITI_CONFIG; ignored when missing)")
	f.StringVar(&o.dotenv, "env-file", ".env", "a .env file with provider settings (ignored when missing)")
	f.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	f.StringArrayVar(&o.corsOrigins, "cors-origin", envList("SMRITI_CORS_ORIGINS"),
		"allow cross-origin requests from this origin, such as http://localhost:5173 (repeatable; env SMRITI_CORS_ORIGINS, comma-separated; never * or null)")
	f.StringArrayVar(&o.allowedHosts, "allowed-host", envList("SMRITI_ALLOWED_HOSTS"),
		"also answer requests whose Host is this name (repeatable; env SMRITI_ALLOWED_HOSTS); on loopback only localhost, 127.0.0.1 and [::1] are answered otherwise")
	addAuthFlags(cmd, &o.auth)
	f.BoolVar(&o.insecureNoAuth, "insecure-no-auth", false,
		"serve on a non-loopback address without accounts: anyone who can reach the port can read, change and delete everything")
	retention, err := time.ParseDuration(envOr("SMRITI_IDEMPOTENCY_TTL", store.DefaultKeyRetention.String()))
	if err != nil || retention <= 0 {
		retention = store.DefaultKeyRetention
	}
	f.DurationVar(&o.keyRetention, "idempotency-ttl", retention, "how long a send's Idempotency-Key is honoured, then purged (env SMRITI_IDEMPOTENCY_TTL)")
	f.DurationVar(&o.idleRelease, "idle-release", defaultIdleRelease,
		"after this long with no request, hand memory back to the system (idle database connections, page caches, the binary's code pages); 0 never (env SMRITI_IDLE_RELEASE)")
	f.DurationVar(&o.fetchEvery, "fetch-every", envDuration("SMRITI_FETCH_EVERY"),
		"fetch every space's remotes this often, so briefs can say a branch is behind its remote; no local branch moves (0: only when asked; env SMRITI_FETCH_EVERY)")
	f.IntVar(&o.turnCacheMB, "turn-cache-mb", store.DefaultTurnCacheBytes>>20,
		"memory bound of the cache of hot sessions' recent turns, in MiB; 0 turns it off (env SMRITI_TURN_CACHE_MB)")
	addDatabaseFlags(cmd, &o.dbOpts)
	return cmd
}

// addDatabaseFlags adds the PostgreSQL pool and availability flags.
func addDatabaseFlags(cmd *cobra.Command, o *store.Options) {
	f := cmd.Flags()
	f.IntVar(&o.MaxConns, "db-max-conns", store.DefaultMaxConns,
		"PostgreSQL: most connections this server opens; size it so replicas × this fits the server's (or pooler's) max_connections")
	f.DurationVar(&o.MaxConnLifetime, "db-max-conn-lifetime", 30*time.Minute,
		"PostgreSQL: close a connection this long after it opened, so the pool follows a proxy's routing after a failover (0: never)")
	f.DurationVar(&o.Timeout, "db-timeout", store.DefaultTimeout,
		"PostgreSQL: longest wait for one answer from the database; statement_timeout is 90% of it (except with --db-pooler=transaction), a server that stops answering breaks the connection at it; requests then get 503 with Retry-After (negative: no bound)")
	f.StringVar(&o.Pooler, "db-pooler", "",
		"PostgreSQL: transaction when --db goes through a transaction-mode pooler (pgbouncer pool_mode=transaction, Supabase, Neon): no prepared statements, the simple query protocol, no start-up parameters, a table lock for migrations; empty or session otherwise")
	f.DurationVar(&o.WaitFor, "db-wait", time.Minute,
		"at start, keep trying a database that does not answer yet for this long (backing off up to 5 s) before giving up (0: one try)")
	addAvailabilityFlags(cmd, o)
}

// memoryFlagsFromEnv applies SMRITI_IDLE_RELEASE and SMRITI_TURN_CACHE_MB
// where the flags were not given, and refuses values that are not numbers.
func memoryFlagsFromEnv(cmd *cobra.Command, o *serveOptions) error {
	if v := os.Getenv("SMRITI_IDLE_RELEASE"); v != "" && !cmd.Flags().Changed("idle-release") {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("SMRITI_IDLE_RELEASE=%q is not a duration: use one such as 30s or 2m, or 0 to never release", v)
		}
		o.idleRelease = d
	}
	if v := os.Getenv("SMRITI_TURN_CACHE_MB"); v != "" && !cmd.Flags().Changed("turn-cache-mb") {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("SMRITI_TURN_CACHE_MB=%q is not a whole number of MiB (0 turns the cache off)", v)
		}
		o.turnCacheMB = n
	}
	if o.idleRelease < 0 {
		return fmt.Errorf("the idle release time must be 0 (never) or more, not %s", o.idleRelease)
	}
	if o.turnCacheMB < 0 {
		return fmt.Errorf("the turn cache bound must be 0 (off) or more MiB, not %d", o.turnCacheMB)
	}
	return nil
}

// envDuration is the duration an environment variable names (0 when it is
// unset or not a duration).
func envDuration(name string) time.Duration {
	d, err := time.ParseDuration(os.Getenv(name))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// defaultIdleRelease is how long a server waits with no request before it
// hands memory back.
const defaultIdleRelease = 30 * time.Second

// envList reads a comma-separated environment variable.
func envList(key string) []string {
	var out []string
	for _, v := range strings.Split(os.Getenv(key), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// checkExposure refuses to serve beyond loopback without accounts unless
// the operator insists, and then warns at every start.
func checkExposure(addr string, auth, insecure bool, logger *slog.Logger) error {
	if isLoopback(addr) || auth {
		return nil
	}
	if !insecure {
		return fmt.Errorf("refusing to serve on %s without authentication: anyone who can reach this address could read and change every space; turn on accounts with --auth (SMRITI_AUTH=on), listen on 127.0.0.1 (the default), or pass --insecure-no-auth if a trusted network or proxy guards it", addr)
	}
	logger.Warn("serving on a non-loopback address with no authentication (--insecure-no-auth): anyone who can reach it can read, change and delete every space", "addr", addr)
	return nil
}

// isLoopback reports whether a listen address only accepts local
// connections. An empty host (":8000") listens on every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
	// The secret detector's rules take a moment to build; build them now,
	// beside the start-up, so that the first write does not wait on them.
	go secrets.Warm()

	if err := checkExposure(o.addr, o.auth.enabled, o.insecureNoAuth, logger); err != nil {
		return err
	}
	for _, origin := range o.corsOrigins {
		if _, err := httpapi.ValidateCORSOrigin(origin); err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := store.OpenWith(ctx, o.db, logger, o.dbOpts)
	if err != nil {
		return fmt.Errorf("open database %s: %w", redactDSN(o.db), err)
	}
	defer db.Close()
	db.KeyRetention = o.keyRetention
	db.SetTurnCacheBytes(int64(o.turnCacheMB) << 20)
	go purgeSendKeys(ctx, db, logger)

	cfg, err := provider.Load(provider.LoadOptions{YAMLPath: o.config, DotEnvPath: o.dotenv, Getenv: os.Getenv})
	if err != nil {
		return fmt.Errorf("load provider configuration: %w", err)
	}
	metrics := httpapi.NewMetrics()
	metrics.Gauge("smriti_turn_cache_bytes", "Memory the recent-turns cache holds, by its own count (bounded by --turn-cache-mb).",
		func() float64 { _, n := db.TurnCacheSize(); return float64(n) })
	metrics.Gauge("smriti_turn_cache_sessions", "Sessions whose recent turns the cache holds.",
		func() float64 { n, _ := db.TurnCacheSize(); return float64(n) })
	providers := provider.New(cfg, provider.WithLogger(logger), provider.WithObserver(metrics.ObserveProviderCall))
	coord := &app.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Now: clock.Now, Root: worktreeRoot()}
	authCfg, gate := o.auth.config(db)
	apiCfg := apiConfig(db, providers, logger, coord, metrics, gate)
	apiCfg.Web = web.Handler()
	apiCfg.Security = httpapi.SecurityConfig{CORSOrigins: o.corsOrigins, AllowedHosts: o.allowedHosts}
	apiCfg.Auth = authCfg
	api := httpapi.New(apiCfg)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another server running? choose another --addr)", o.addr, err)
	}
	srv := api.HTTPServer()
	_, bg := providers.Status()
	logger.Info("smriti serving", "url", "http://"+ln.Addr().String(), "database", db.Engine(), "dsn", redactDSN(o.db),
		"auth", o.auth.enabled, "chat_provider", providers.DefaultProvider(), "background", bg.Provider, "background_mock", bg.UsingMock, "version", version)
	if bg.UsingMock {
		logger.Warn("no LLM provider configured: chat and drafting use the offline mock; set OPENAI_API_KEY or ANTHROPIC_API_KEY to use a real model")
	}

	// Start-up touched code and constant data all over the binary (package
	// initialisation, migrations, the command tree); hand those pages back so
	// the idle server keeps resident only what serving uses.
	if _, err := memtrim.Executable(); err != nil {
		logger.Debug("start-up pages kept", "err", err)
	}

	if o.idleRelease > 0 {
		idle := memtrim.NewIdle(o.idleRelease, func() { releaseMemory(ctx, db, logger) })
		srv.Handler = idle.Wrap(srv.Handler)
		go idle.Run(ctx)
	}

	if o.fetchEvery > 0 {
		go apiCfg.App.FetchEvery(ctx, o.fetchEvery, func(err error) { logger.Warn("background fetch failed", "err", err) })
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

// releaseMemory hands back what a quiet server holds only for speed: idle
// database connections and SQLite's page cache, the Go heap's free pages,
// and the binary's pages the last burst mapped. The turn cache stays: it is
// bounded, and it is what makes the next send cheap.
func releaseMemory(ctx context.Context, db *store.Store, logger *slog.Logger) {
	if err := db.ReleaseMemory(ctx); err != nil && ctx.Err() == nil {
		logger.Warn("releasing idle database memory failed", "err", err)
	}
	debug.FreeOSMemory()
	if _, err := memtrim.Executable(); err != nil {
		logger.Debug("binary pages kept", "err", err)
	}
}

// isPostgres reports whether dsn names a PostgreSQL database.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
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

// purgeSendKeys deletes expired idempotency keys hourly until ctx ends.
// Expired keys are already ignored by a replay; this only reclaims their
// rows, so it waits an hour rather than doing work while the server starts.
func purgeSendKeys(ctx context.Context, db *store.Store, logger *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if n, err := db.PurgeSendKeys(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("purging idempotency keys failed", "err", err)
		} else if n > 0 {
			logger.Info("purged expired idempotency keys", "count", n)
		}
	}
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
