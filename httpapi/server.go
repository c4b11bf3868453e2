// Package httpapi is Smriti's HTTP server: routing, auth, error mapping,
// OpenAPI, metrics, and handlers that decode a request, call the use case
// in app and encode the answer (the types are in wire, the Go client in
// client). The wire format is compatible with the first implementation's
// API. It must not import the store or provider packages.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"smriti/app"
	"smriti/contract"
	"smriti/internal/clock"
	"strings"
	"time"

	"smriti"
)

// Backend is what the server needs from the database itself, beside the
// use cases (App): health and database status.
type Backend interface {
	// Ping checks the database answers.
	Ping(ctx context.Context) error
	// Engine names the database engine ("sqlite" or "postgres").
	Engine() string
	// Classify returns a database failure that passes (a lost
	// connection, a failover, a read-only primary) as a smriti.ETRYAGAIN
	// error, and any other error unchanged.
	Classify(err error) error
	// Status checks the database within ctx's deadline: reachable,
	// writable, migration version and pool statistics.
	Status(ctx context.Context) contract.DatabaseStatus
}

// Config configures a Server.
type Config struct {
	// Backend is the store, for what is not a use case: health and
	// database status.
	Backend Backend
	// App is the use-case layer every handler calls (required).
	App     *app.App
	Logger  *slog.Logger
	Version string
	Commit  string
	// BodyLimit bounds request bodies (DefaultBodyLimit when 0).
	BodyLimit int64
	// ImportBodyLimit bounds the bodies of the transcript and space import
	// routes (DefaultImportBodyLimit when 0).
	ImportBodyLimit int64
	// Web, when set, serves the web workspace at /: every path outside
	// /api/ that no route matched.
	Web http.Handler
	// Security and connection bounds (see security.go and browser.go).
	Security SecurityConfig
	// MCP, when set, serves the MCP tools over streamable HTTP at /mcp.
	MCP http.Handler
	// MCPSessionIdle is how long the MCP handler keeps a quiet session open;
	// past it (and a minute's grace) the session's owner binding may be
	// dropped to make room. Zero keeps bindings until the session is deleted.
	MCPSessionIdle time.Duration
	// Metrics receives request and provider-call series; when nil, New
	// makes its own.
	Metrics *Metrics
	// Now is the clock for rendered relative times (clock.Now when nil).
	Now clock.Clock
	// Auth is auth mode (see auth.go); the zero value is local mode. The
	// LLM rate limit is the app's gate.
	Auth AuthConfig
}

// Server is the HTTP API.
type Server struct {
	cfg       Config
	store     Backend
	log       *slog.Logger
	bodyLimit int64
	metrics   *Metrics
	app       *app.App
	routes    []route
	handler   http.Handler
	guard     *browserGuard
	sec       SecurityConfig
	streams   chan struct{}
	auth      AuthConfig
	creds     *credCache
	mcpOwners sessionOwners
	logins    *loginLimits
}

// New builds the server and its routes.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, store: cfg.Backend, app: cfg.App, log: cfg.Logger, bodyLimit: cfg.BodyLimit}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.bodyLimit <= 0 {
		s.bodyLimit = DefaultBodyLimit
	}
	if s.metrics = cfg.Metrics; s.metrics == nil {
		s.metrics = NewMetrics()
	}
	s.auth, s.creds = cfg.Auth, newCredCache(cfg.Auth.CredentialCacheTTL)
	s.logins = newLoginLimits(cfg.Auth.LoginRefill)
	if s.auth.Accounts == nil && cfg.App != nil {
		s.auth.Accounts = cfg.App.Accounts()
	}
	s.sec = cfg.Security.withDefaults()
	s.guard = newBrowserGuard(s.sec.CORSOrigins, s.sec.AllowedHosts)
	s.streams = make(chan struct{}, s.sec.MaxStreams)
	s.routes = s.allRoutes()
	idempotentRoutes(s.routes, s)
	mux := http.NewServeMux()
	for _, rt := range s.routes {
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	mux.Handle("GET /metrics", s.metrics.handler())
	if cfg.MCP != nil {
		mux.Handle("/mcp", http.MaxBytesHandler(s.gateMCP(cfg.MCP), s.bodyLimit))
	}
	// A known path with the wrong method is 405 with Allow; anything else
	// unrouted is a JSON 404.
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allow := allowedMethods(mux, r); len(allow) > 0 {
			methodNotAllowed(w, r, allow...)
			return
		}
		s.writeError(w, r, smriti.Errorf(smriti.ENOTFOUND, "Not found: %s %s", r.Method, r.URL.Path))
	})
	if cfg.Web != nil {
		mux.Handle("/api/", notFound)
		// The workspace catches every other path, so a wrong method on
		// /health, /openapi.json or /docs is answered here, in the API's shape.
		web := cfg.Web
		mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				if allow := allowedMethods(mux, r); len(allow) > 0 {
					methodNotAllowed(w, r, allow...)
					return
				}
			}
			web.ServeHTTP(w, r)
		}))
	} else {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/docs", http.StatusFound)
		})
		mux.Handle("/", notFound)
	}
	s.handler = s.middleware(mux)
	return s
}

// methodNotAllowed answers 405 with the Allow header and a JSON detail
// naming the methods the path allows.
func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow ...string) {
	list := strings.Join(allow, ", ")
	w.Header().Set("Allow", list)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{
		"detail": fmt.Sprintf("Method %s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, list)})
}

// allowedMethods lists the methods the mux serves for r's path other than
// the catch-alls ("/" and, with the web workspace, "/api/"), so a wrong
// method is told apart from an unknown path.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" && pattern != "/api/" {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return allow
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return clock.Now()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
