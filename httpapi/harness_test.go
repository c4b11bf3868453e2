package httpapi_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/gitremote"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/remote"
	"smriti/store"
	"smriti/store/storetest"
	"smriti/tokenizer"
)

// testEnv is a real server on 127.0.0.1 over a real database, and the
// project's own client pointed at it.
type testEnv struct {
	c     *client.Client
	store *store.Store
	url   string
	// http is a plain client whose requests and answers are checked
	// against the served document, like c's (see contract_test.go).
	http *http.Client
	srv  *httpapi.Server
	dsn  string
	app  *app.App
}

type envOption func(*envConfig)

type envConfig struct {
	postgres bool
	getenv   func(string) string
	popts    []provider.Option
	// coord, when set, builds the coordinator (worktrees with real git).
	coord    func(st *store.Store) *app.Coordinator
	security httpapi.SecurityConfig
	// auth and logger configure auth mode and the server's log (see
	// auth_security_test.go).
	auth   httpapi.AuthConfig
	logger *slog.Logger
	// gate is the app's LLM gate (its allowance; the role check follows
	// auth mode).
	gate app.GateConfig
	// storeOpts tune the store's PostgreSQL pool.
	storeOpts store.Options
	// noGit builds the server without a way to reach git repositories.
	noGit bool
}

// withSecurity sets the server's security and connection bounds.
func withSecurity(sc httpapi.SecurityConfig) envOption {
	return func(c *envConfig) { c.security = sc }
}

// withPostgres runs the server on a fresh PostgreSQL database
// (SMRITI_TEST_POSTGRES_URL; skipped when unset outside CI).
func withPostgres() envOption { return func(c *envConfig) { c.postgres = true } }

// withProviderEnv configures providers from the given variables.
func withProviderEnv(vars map[string]string) envOption {
	return func(c *envConfig) { c.getenv = func(k string) string { return vars[k] } }
}

func withProviderOptions(opts ...provider.Option) envOption {
	return func(c *envConfig) { c.popts = append(c.popts, opts...) }
}

func newEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	cfg := envConfig{getenv: func(string) string { return "" }}
	for _, o := range opts {
		o(&cfg)
	}
	dsn := filepath.Join(t.TempDir(), "smriti.db")
	if cfg.postgres {
		dsn = storetest.PostgresDSN(t)
	}
	return startEnv(t, dsn, cfg)
}

// newEnvOn starts a second server on the database of another (a replica).
func newEnvOn(t *testing.T, dsn string) *testEnv {
	return startEnv(t, dsn, envConfig{getenv: func(string) string { return "" }})
}

func startEnv(t *testing.T, dsn string, cfg envConfig) *testEnv {
	t.Helper()
	st, err := store.OpenWith(context.Background(), dsn, nil, cfg.storeOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pcfg, err := provider.Load(provider.LoadOptions{Getenv: cfg.getenv})
	if err != nil {
		t.Fatal(err)
	}
	// Provider calls reach the server's metrics the way `smriti serve`
	// wires them.
	metrics := httpapi.NewMetrics()
	providers := provider.New(pcfg, append([]provider.Option{provider.WithObserver(metrics.ObserveProviderCall)}, cfg.popts...)...)
	var coord *app.Coordinator
	if cfg.coord != nil {
		coord = cfg.coord(st)
	}
	gate := cfg.gate
	if cfg.auth.Enabled {
		gate.Roles = st.SpaceRole
	}
	var gitDial remote.Dialer
	if !cfg.noGit {
		gitDial = gitremote.New(filepath.Join(t.TempDir(), "git-cache")).Dial
	}
	a := app.New(app.Config{Store: st, Providers: providers, Tokens: tokenizer.Counter{}, Now: st.Now, Coordinator: coord, Gate: gate, Dialer: client.Dial,
		GitDialer: gitDial})
	srv := httpapi.New(httpapi.Config{Backend: st, App: a, Version: "test", Commit: "test", Metrics: metrics,
		Security: cfg.security, Auth: cfg.auth, Logger: cfg.logger})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	})
	url := "http://" + ln.Addr().String()
	contract := newContractTransport(t, url)
	c := client.NewClient(url)
	c.HTTP.Transport = contract
	return &testEnv{c: c, store: st, url: url, http: &http.Client{Transport: contract}, srv: srv, dsn: dsn, app: a}
}

var bg = context.Background()

// wantCode asserts err is a domain error with the given code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := smriti.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// result lets a call read storetest.Get(f()).Must(t).
// raw sends a request with a raw body and returns the status and detail.
func (e *testEnv) raw(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}
