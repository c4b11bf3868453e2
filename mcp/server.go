package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"smriti/client"
	"smriti/internal/textutil"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
)

// Config builds a server.
type Config struct {
	Ops Ops
	// StatusOf is the HTTP status that matches an error's domain code; tool
	// errors lead with it so an agent sees what the API would have said.
	StatusOf func(error) int
	Version  string
	// GitState reads where the git work tree at a checkpoint's
	// project_root stands, recorded as the checkpoint's metadata.git (nil:
	// not recorded; an error, such as a directory that is no work tree,
	// records nothing).
	GitState func(ctx context.Context, dir string) (*smriti.GitState, error)
	// Tools is the toolset offered (the zero value is ToolsetCore).
	Tools Toolset
	// WorkTree checks items' code refs where state is handed over
	// (smriti_state, smriti_restore, smriti_check) and makes the refs of
	// the items a write adds; nil does neither.
	WorkTree WorkTree
}

// NewServer returns the MCP server with every tool registered.
func NewServer(cfg Config) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "smriti", Title: "Smriti", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: "Smriti is version control for reasoning state. Read a space's state first (smriti_state), " +
			"checkpoint conclusions at inflection points (smriti_create_checkpoint), claim work before doing it (smriti_claim). " +
			"Every space argument takes a name or UUID; a checkpoint, a UUID or a unique prefix (7+ characters) of its id or hash. " +
			"An agent or author left out is SMRITI_AGENT, else your client's name.",
	})
	t := &tools{ops: cfg.Ops, statusOf: cfg.StatusOf, gitState: cfg.GitState, toolset: cfg.Tools, workTree: cfg.WorkTree}
	if t.statusOf == nil {
		t.statusOf = func(error) int { return 0 }
	}
	t.register(s)
	return s
}

// SessionIdle is how long an MCP session over HTTP may stay quiet before
// the server closes it; its id is then unknown for good.
const SessionIdle = time.Hour

// HTTPHandler serves the tools over streamable HTTP (mounted at /mcp): the
// core toolset, or every tool with ?tools=all (cfg.Tools is ignored). Each
// MCP server is built on the first request for it, not when the HTTP server
// starts: registering the tools derives and resolves a JSON Schema for each
// one (about 2 MB of allocation), which a server whose clients never use MCP
// over HTTP should neither wait for nor keep.
func HTTPHandler(cfg Config) http.Handler {
	handlerFor := func(ts Toolset) func() http.Handler {
		return sync.OnceValue(func() http.Handler {
			c := cfg
			c.Tools = ts
			s := NewServer(c)
			return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
				&sdk.StreamableHTTPOptions{SessionTimeout: SessionIdle})
		})
	}
	core, all := handlerFor(ToolsetCore), handlerFor(ToolsetAll)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts, err := ParseToolset(r.URL.Query().Get("tools"))
		if err != nil {
			http.Error(w, smriti.ErrorMessage(err), http.StatusBadRequest)
			return
		}
		if ts == ToolsetAll {
			all().ServeHTTP(w, r)
			return
		}
		core().ServeHTTP(w, r)
	})
}

// ServeStdio runs the tools over stdin/stdout until the client goes away.
func ServeStdio(ctx context.Context, cfg Config) error {
	out := &lockedWriter{w: os.Stdout}
	return NewServer(cfg).Run(ctx, &sdk.IOTransport{Reader: jsonLines(os.Stdin, out), Writer: out})
}

type tools struct {
	ops      Ops
	toolset  Toolset
	statusOf func(error) int
	gitState func(ctx context.Context, dir string) (*smriti.GitState, error)
	// workTree checks and makes items' code refs (nil: no work tree).
	workTree WorkTree
}

// gitReadLimit bounds reading a project's git state for a checkpoint: a
// slow or hung repository costs the write its metadata.git, not the write.
const gitReadLimit = 10 * time.Second

// gitOf is the git state of a checkpoint's project root, nil when none was
// given, it is no git work tree, or the tools cannot read git.
func (t *tools) gitOf(ctx context.Context, root string) *smriti.GitState {
	if t.gitState == nil || strings.TrimSpace(root) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitReadLimit)
	defer cancel()
	g, err := t.gitState(ctx, root)
	if err != nil {
		return nil
	}
	return g
}

// text is a successful tool answer.
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// fail is a tool error: the HTTP status, the server's message and any
// structured detail, so an agent can tell "not found" from "conflict".
func (t *tools) fail(err error) *sdk.CallToolResult {
	if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
		msg, data := conflictText(cc, t.statusOf(err))
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}, StructuredContent: data}
	}
	var b strings.Builder
	if st := t.statusOf(err); st != 0 {
		fmt.Fprintf(&b, "HTTP %d\n", st)
	}
	b.WriteString(smriti.ErrorMessage(err))
	if data := smriti.ErrorData(err); data != nil {
		if j, jerr := json.MarshalIndent(data, "", "  "); jerr == nil {
			b.WriteString("\n")
			b.Write(j)
		}
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}
}

func (t *tools) space(ctx context.Context, arg string) (*smriti.Space, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "space is required (a name or UUID; smriti_list_spaces lists them)")
	}
	if textutil.LooksLikeID(arg) {
		if id, err := smriti.ParseID("space", arg); err == nil {
			sp, err := t.ops.Space(ctx, id)
			if err == nil || smriti.ErrorCode(err) != smriti.ENOTFOUND {
				return sp, err
			}
		}
	}
	all, err := t.ops.AllSpaces(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	i, err := client.MatchSpaceName(names, arg)
	if err != nil {
		return nil, err
	}
	return all[i], nil
}

func (t *tools) checkpoint(ctx context.Context, arg string) (*smriti.Checkpoint, error) {
	return t.ops.ResolveCheckpoint(ctx, nil, arg)
}
