// Package httpapi is Smriti's HTTP adapter: the server (routing, handlers,
// error mapping, OpenAPI, metrics) and the Go client the CLI and MCP use to
// speak to it. The wire format is compatible with the first implementation's
// API. It talks to the rest of Smriti only through the domain's interfaces;
// it must not import the store or provider packages.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"smriti"
)

// Backend is what the server needs from storage.
type Backend interface {
	smriti.SpaceService
	smriti.SessionService
	smriti.CheckpointService
	smriti.LineageService
	smriti.SearchService
	smriti.SpaceExporter
	smriti.TranscriptStore
	smriti.ClaimService
	smriti.MetricsService
	smriti.StateService
	smriti.WorktreeStore
	// Ping checks the database answers.
	Ping(ctx context.Context) error
	// Engine names the database engine ("sqlite" or "postgres").
	Engine() string
}

// Config configures a Server.
type Config struct {
	Backend   Backend
	Providers smriti.Providers
	Logger    *slog.Logger
	Version   string
	Commit    string
	// BodyLimit bounds request bodies (DefaultBodyLimit when 0).
	BodyLimit int64
	// ImportBodyLimit bounds the bodies of the transcript and space import
	// routes (DefaultImportBodyLimit when 0).
	ImportBodyLimit int64
	// Web, when set, serves the web workspace at /.
	Web http.Handler
	// MCP, when set, serves the MCP tools over streamable HTTP at /mcp.
	MCP http.Handler
	// Coordinator serves the state brief and worktrees; nil builds one over
	// Backend without git (worktree routes then answer 503).
	Coordinator *smriti.Coordinator
	// Now is the clock for rendered relative times (smriti.Now when nil).
	Now smriti.Clock
}

// Server is the HTTP API.
type Server struct {
	cfg       Config
	store     Backend
	providers smriti.Providers
	log       *slog.Logger
	bodyLimit int64
	metrics   *metrics
	routes    []route
	handler   http.Handler
	coord     *smriti.Coordinator
}

// New builds the server and its routes.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, store: cfg.Backend, providers: cfg.Providers, log: cfg.Logger, bodyLimit: cfg.BodyLimit}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.bodyLimit <= 0 {
		s.bodyLimit = DefaultBodyLimit
	}
	s.coord = cfg.Coordinator
	if s.coord == nil {
		s.coord = &smriti.Coordinator{Briefs: cfg.Backend, Store: cfg.Backend}
	}
	s.metrics = newMetrics()
	s.routes = s.allRoutes()
	mux := http.NewServeMux()
	for _, rt := range s.routes {
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	mux.Handle("GET /metrics", s.metrics.handler())
	if cfg.MCP != nil {
		mux.Handle("/mcp", http.MaxBytesHandler(cfg.MCP, s.bodyLimit))
	}
	if cfg.Web != nil {
		mux.Handle("/", cfg.Web)
	} else {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/docs", http.StatusFound)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, smriti.Errorf(smriti.ENOTFOUND, "Not found: %s %s", r.Method, r.URL.Path))
	})
	s.handler = s.middleware(mux)
	return s
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return smriti.Now()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// ObserveProviderCall records one provider call in the server's metrics;
// main passes it to the provider registry as its observer.
func (s *Server) ObserveProviderCall(provider, model, outcome string, usage smriti.Usage, seconds float64) {
	s.metrics.observeProvider(provider, model, outcome, usage, seconds)
}
