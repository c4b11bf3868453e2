package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr(b bool) *bool { return &b }

// Annotation sets: a read never changes anything; an additive write never
// destroys; a destructive one may.
var (
	readOnly    = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	additive    = &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	idempotent  = &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	destructive = &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
)

type handler[In any] func(ctx context.Context, in In) (string, error)

// reply is a tool's answer: markdown, and structured content when Data is
// set.
type reply struct {
	Text string
	Data any
}

// add registers a tool whose handler returns markdown or an error.
func add[In any](t *tools, s *sdk.Server, name, desc string, ann *sdk.ToolAnnotations, h handler[In]) {
	addReply(t, s, name, desc, ann, func(ctx context.Context, in In) (reply, error) {
		out, err := h(ctx, in)
		return reply{Text: out}, err
	})
}

// addReply registers a tool whose handler returns a reply or an error,
// when the server's toolset has it.
func addReply[In any](t *tools, s *sdk.Server, name, desc string, ann *sdk.ToolAnnotations, h func(ctx context.Context, in In) (reply, error)) {
	if !t.toolset.has(name) {
		return
	}
	schema, strict := toolSchemas[In]()
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc, Annotations: ann, InputSchema: schema},
		func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			if req != nil && req.Params != nil {
				if err := checkArgs(strict, req.Params.Arguments); err != nil {
					var res sdk.CallToolResult
					res.SetError(err)
					return &res, nil, nil
				}
			}
			if req != nil && req.Session != nil {
				if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
					ctx = context.WithValue(ctx, clientNameKey{}, p.ClientInfo.Name)
				}
			}
			out, err := h(ctx, in)
			if err != nil {
				return t.fail(err), nil, nil
			}
			res := text(out.Text)
			if out.Data != nil {
				res.StructuredContent = out.Data
			}
			return res, nil, nil
		})
}

type noArgs struct{}

type checkpointArg struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
}

type showIn struct {
	CheckpointID  string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
	FullArtifacts bool   `json:"full_artifacts,omitempty" jsonschema:"full artifacts, not 800-char previews"`
}

type listCheckpointsIn struct {
	Space  string `json:"space" jsonschema:"space name or UUID"`
	Branch string `json:"branch,omitempty" jsonschema:"only this branch (default all)"`
}

type restoreIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
	Preview      bool   `json:"preview,omitempty" jsonschema:"800-char artifact previews, not full"`
}

type compareIn struct {
	CheckpointA   string `json:"checkpoint_a" jsonschema:"one checkpoint (UUID or prefix)"`
	CheckpointB   string `json:"checkpoint_b" jsonschema:"the other"`
	FullArtifacts bool   `json:"full_artifacts,omitempty" jsonschema:"ignored: artifacts are not diffed"`
}

type createSpaceIn struct {
	Name        string `json:"name" jsonschema:"unique among your spaces"`
	Description string `json:"description,omitempty" jsonschema:"what it is for"`
}

type forkIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
	Branch       string `json:"branch,omitempty" jsonschema:"new branch (default: a free name)"`
}

type spaceIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
}

type noteIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
	Text         string `json:"text" jsonschema:"up to 2000 chars"`
	Author       string `json:"author,omitempty" jsonschema:"default: you"`
	Kind         string `json:"kind,omitempty" jsonschema:"note (default), milestone, noise"`
}

type closeBranchIn struct {
	Space       string `json:"space" jsonschema:"space name or UUID"`
	Branch      string `json:"branch" jsonschema:"branch name"`
	Disposition string `json:"disposition,omitempty" jsonschema:"integrated (default), abandoned, active"`
}

type installSkillIn struct {
	Target string `json:"target" jsonschema:"claude-code or codex"`
}

type deleteCheckpointIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or 7+ char id/hash prefix"`
	Cascade      bool   `json:"cascade,omitempty" jsonschema:"also delete descendants and their forks"`
}

// resolutionIn settles one conflict a merge preview or a refused save
// listed.
type resolutionIn struct {
	Field  string `json:"field" jsonschema:"the conflict's field, as listed"`
	Key    string `json:"key,omitempty" jsonschema:"its item id or key, as listed"`
	Choice string `json:"choice" jsonschema:"ours, theirs, base or custom"`
	Value  string `json:"value,omitempty" jsonschema:"value for custom"`
}

type mergeIn struct {
	Source      string         `json:"source" jsonschema:"checkpoint to merge"`
	Target      string         `json:"target,omitempty" jsonschema:"default main's head"`
	Resolutions []resolutionIn `json:"resolutions,omitempty" jsonschema:"one per conflict the preview listed"`
	Commit      bool           `json:"commit,omitempty" jsonschema:"write it; false previews"`
	Message     string         `json:"message,omitempty" jsonschema:"its title"`
}

type contextIn struct {
	Space   string `json:"space" jsonschema:"space name or UUID"`
	Message string `json:"message" jsonschema:"what a send would carry"`
	Session string `json:"session,omitempty" jsonschema:"session UUID (default: a new one)"`
}

func (t *tools) register(s *sdk.Server) {
	t.registerSpaces(s)
	t.registerCheckpoints(s)
	t.registerWrites(s)
	t.registerLineage(s)
	t.registerCoordination(s)
	t.registerRefs(s)
	t.registerSearch(s)
	t.registerProposals(s)
	t.registerSync(s)
}

type whyIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
	Item  string `json:"item" jsonschema:"id (d-7f3a9c), a version's name item@version (d-7f3a9c@3f9a1c2b: the id and 8+ hex digits of the hash of the checkpoint that introduced the version), or words of its text"`
}
