package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/intelligence"
)

// connect serves the tools over ops on in-memory transports and returns a
// client session.
func connect(t *testing.T, ops Ops) *sdk.ClientSession {
	t.Helper()
	status := func(err error) int {
		switch smriti.ErrorCode(err) {
		case smriti.ENOTFOUND:
			return 404
		case smriti.EUNPROCESSABLE:
			return 422
		}
		return 500
	}
	return connectConfig(t, Config{Ops: ops, StatusOf: status, Version: "test", Tools: ToolsetAll})
}

// connectConfig serves the tools of cfg on in-memory transports and returns
// a client session.
func connectConfig(t *testing.T, cfg Config) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := NewServer(cfg).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its text and whether it is an error.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

var demo = &smriti.Space{ID: smriti.NewID(), Name: "demo"}

func TestCreateCheckpointCommitsOntoMainWithoutASession(t *testing.T) {
	head := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: demo.ID, BranchName: "main"}
	items := []smriti.Item{{ID: "d-0a1b2c", Kind: smriti.KindDecision, Text: "SQLite by default"}}
	var extracted, committed bool
	ops := &fakeOps{
		SpacesFn: func(context.Context) ([]*smriti.Space, error) { return []*smriti.Space{demo}, nil },
		CommitBaseFn: func(_ context.Context, space, session smriti.ID) (*smriti.ID, error) {
			if space != demo.ID || session != smriti.NilID {
				t.Errorf("base of %s session %s, want demo's with no session", space, session)
			}
			return &head.ID, nil
		},
		ExtractFn: func(_ context.Context, space smriti.ID, markdown string, onto *smriti.ID) (*intelligence.DraftResult, error) {
			extracted = true
			if space != demo.ID || onto == nil || *onto != head.ID || markdown != "# Chose SQLite\n" {
				t.Errorf("extract in %s onto %v of %q, want demo onto the head", space, onto, markdown)
			}
			return &intelligence.DraftResult{Draft: &intelligence.Draft{Title: "Chose SQLite", Decisions: []string{"SQLite by default"}},
				Items: items, Model: "mock-1", Base: head}, nil
		},
		CommitCheckpointFn: func(_ context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
			committed = true
			if in.SessionID != smriti.NilID || in.SpaceID != demo.ID || len(in.Items) != 1 || in.Items[0].ID != "d-0a1b2c" ||
				in.Model == nil || *in.Model != "mock-1" || in.AuthorAgent == nil || *in.AuthorAgent != "codex" || in.Content.Message != "Chose SQLite" ||
				in.BaseCheckpointID == nil || *in.BaseCheckpointID != head.ID {
				t.Errorf("commit = %+v, want no session, demo, the extracted item and model, author codex, based on the head", in)
			}
			return &smriti.Checkpoint{ID: smriti.NewID(), Hash: strings.Repeat("ab", 32), BranchName: "main", Content: in.Content}, nil
		},
	}
	got, isErr := callTool(t, connect(t, ops), "smriti_create_checkpoint", map[string]any{"space": "demo", "content": "# Chose SQLite\n", "author_agent": "codex"})
	if isErr || got != "Created checkpoint `abababa` on branch `main`: Chose SQLite\n" || !extracted || !committed {
		t.Fatalf("result %q (error %v), extracted %v, committed %v", got, isErr, extracted, committed)
	}
}

func TestContextWithoutSessionPreviewsTheSpace(t *testing.T) {
	ops := &fakeOps{
		SpacesFn: func(context.Context) ([]*smriti.Space, error) { return []*smriti.Space{demo}, nil },
		PreviewContextFn: func(_ context.Context, space *smriti.ID, req app.SendRequest) (*ContextPreview, error) {
			if space == nil || *space != demo.ID || req != (app.SendRequest{Message: "what now?"}) {
				t.Errorf("preview of %v %+v, want demo's new session", space, req)
			}
			return &ContextPreview{Mode: "HEAD", Provider: "mock", Model: "mock-1", TokenEstimate: 42}, nil
		},
	}
	got, isErr := callTool(t, connect(t, ops), "smriti_context", map[string]any{"space": "demo", "message": "what now?"})
	if isErr || !strings.HasPrefix(got, "# Context: HEAD mode · mock/mock-1 · ~42 tokens\n\nCheckpoints: none\n") {
		t.Fatalf("result %q (error %v)", got, isErr)
	}
}

func TestToolErrorsLeadWithTheHTTPStatus(t *testing.T) {
	ops := &fakeOps{SpacesFn: func(context.Context) ([]*smriti.Space, error) { return []*smriti.Space{demo}, nil }}
	cs := connect(t, ops)
	if got, isErr := callTool(t, cs, "smriti_create_checkpoint", map[string]any{"space": "nosuch", "content": "# x"}); !isErr ||
		got != "HTTP 404\nno space found matching \"nosuch\"" {
		t.Fatalf("unknown space: %q (error %v)", got, isErr)
	}
	if got, isErr := callTool(t, cs, "smriti_create_checkpoint", map[string]any{"space": "demo", "content": "  "}); !isErr ||
		got != "HTTP 422\ncontent must be a non-empty markdown string or a checkpoint object" {
		t.Fatalf("blank content: %q (error %v)", got, isErr)
	}
}
