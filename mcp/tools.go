package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/coord"
	"smriti/render"
	"smriti/skills"
	"smriti/tokenizer"
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
	add(t, s, "smriti_list_spaces", "List the spaces.", readOnly, func(ctx context.Context, _ noArgs) (string, error) {
		sp, err := t.ops.Spaces(ctx)
		if err != nil {
			return "", err
		}
		return render.RenderSpaces(sp, "smriti_create_space"), nil
	})
	add(t, s, "smriti_show_checkpoint", "Show a checkpoint in full, with its notes.", readOnly,
		func(ctx context.Context, in showIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			return render.RenderCheckpoint(c, viewOptions(in.FullArtifacts)), nil
		})
	add(t, s, "smriti_list_checkpoints", "A space's checkpoints, newest first, with full ids.", readOnly,
		func(ctx context.Context, in listCheckpointsIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cps, err := t.ops.Checkpoints(ctx, sp.ID, in.Branch)
			if err != nil {
				return "", err
			}
			return render.RenderCheckpointList(cps, time.Now()), nil
		})
	add(t, s, "smriti_review_checkpoint", "LLM review of a checkpoint: contradictions, hidden assumptions, instruction-like content.",
		&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		func(ctx context.Context, in checkpointArg) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			r, err := t.ops.Review(ctx, c.ID)
			if err != nil {
				return "", err
			}
			return render.RenderReview(r), nil
		})
	add(t, s, "smriti_restore", "Continuation brief to resume from a checkpoint; changes nothing.", readOnly,
		func(ctx context.Context, in restoreIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			sp, err := t.ops.Space(ctx, c.SpaceID)
			if err != nil {
				return "", err
			}
			return formatRestore(sp, c, !in.Preview), nil
		})
	add(t, s, "smriti_compare", "Diff two checkpoints: shared and one-sided decisions, assumptions, tasks; common ancestor.", readOnly,
		func(ctx context.Context, in compareIn) (string, error) {
			a, err := t.checkpoint(ctx, in.CheckpointA)
			if err != nil {
				return "", err
			}
			b, err := t.checkpoint(ctx, in.CheckpointB)
			if err != nil {
				return "", err
			}
			anc, err := t.ops.CommonAncestor(ctx, a.ID, b.ID)
			if err != nil {
				return "", err
			}
			return formatCompare(a, b, anc), nil
		})
	add(t, s, "smriti_create_space", "Create a space.", additive, func(ctx context.Context, in createSpaceIn) (string, error) {
		if strings.TrimSpace(in.Name) == "" {
			return "", smriti.Errorf(smriti.EUNPROCESSABLE, "name must not be empty")
		}
		sp, err := t.ops.CreateSpace(ctx, smriti.SpaceCreate{Name: in.Name, Description: in.Description})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Created space `%s`: %s\n", sp.ID, sp.Name), nil
	})
	add(t, s, "smriti_fork", "New branch from a checkpoint; returns its session, whose checkpoints extend the branch.", additive,
		func(ctx context.Context, in forkIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			se, err := t.ops.Fork(ctx, smriti.ForkCreate{SpaceID: c.SpaceID, CheckpointID: c.ID, BranchName: in.Branch})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Forked from `%s` — %q\n  → new session: %s (%s)\n  → seeded from: %s\n\nNext: smriti_create_checkpoint(space=%q, session=%q, content=...)\n",
				short(c.Hash), c.Message, se.BranchName, se.ID, short(c.Hash), c.SpaceID.String(), se.ID.String()), nil
		})
	addReply(t, s, "smriti_create_checkpoint", "Save state: markdown (extracted) or an object (as is). A save behind the head is rebased, or refused listing the conflicts.", additive,
		t.createCheckpoint)
	add(t, s, "smriti_delete_space", "Delete a space and everything in it.", destructive,
		func(ctx context.Context, in spaceIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cps, err := t.ops.Checkpoints(ctx, sp.ID, "")
			if err != nil {
				return "", err
			}
			if err := t.ops.DeleteSpace(ctx, sp.ID); err != nil {
				return "", err
			}
			return fmt.Sprintf("Deleted space '%s' and its %d checkpoint(s).\n", sp.Name, len(cps)), nil
		})
	add(t, s, "smriti_checkpoint_note", "Annotate a checkpoint without changing it.", additive,
		func(ctx context.Context, in noteIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			if in.Author == "" {
				in.Author = t.agent(ctx)
			}
			if in.Kind == "" {
				in.Kind = smriti.NoteKindNote
			}
			n, err := t.ops.AddNote(ctx, c.ID, smriti.NoteCreate{Author: in.Author, Text: in.Text, Kind: in.Kind})
			if err != nil {
				return "", err
			}
			suffix := ""
			if n.Kind != smriti.NoteKindNote {
				suffix = " [" + n.Kind + "]"
			}
			return fmt.Sprintf("Note added to checkpoint `%s…`%s\n", c.ID.String()[:8], suffix), nil
		})
	add(t, s, "smriti_close_branch", "Mark a branch's sessions integrated, abandoned or active.", idempotent,
		func(ctx context.Context, in closeBranchIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.Disposition == "" {
				in.Disposition = "integrated"
			}
			n, err := t.ops.SetBranchDisposition(ctx, sp.ID, in.Branch, in.Disposition)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Branch `%s` marked `%s` (%d session(s) updated).\n", in.Branch, in.Disposition, n), nil
		})
	add(t, s, "smriti_install_skill", "The Smriti skill pack for a host and where to put it; writes no file.", readOnly,
		func(ctx context.Context, in installSkillIn) (string, error) {
			tg, err := skills.Lookup(in.Target)
			if err != nil {
				return "", smriti.Errorf(smriti.EUNPROCESSABLE, "%v", err)
			}
			body, err := skills.Render(in.Target)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("# Smriti skill pack for %s\n\n**Suggested destination (relative to project root):** `%s`\n\n"+
				"Write the block below to that file with your file tools; install again when the version changes.\n\n```markdown\n%s```\n",
				tg.DisplayName, tg.Destination, body), nil
		})
	add(t, s, "smriti_delete_checkpoint", "Delete a checkpoint; refused while others depend on it, unless cascade.", destructive,
		func(ctx context.Context, in deleteCheckpointIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			if err := t.ops.DeleteCheckpoint(ctx, c.ID, in.Cascade); err != nil {
				return "", err
			}
			suffix := ""
			if in.Cascade {
				suffix = " (cascade)"
			}
			return fmt.Sprintf("Deleted checkpoint `%s`%s.\n", short(c.Hash), suffix), nil
		})
	add(t, s, "smriti_merge", "Merge a checkpoint into main's head or target: commit=false previews conflicts; commit=true with resolutions writes.", additive,
		func(ctx context.Context, in mergeIn) (string, error) {
			src, err := t.checkpoint(ctx, in.Source)
			if err != nil {
				return "", err
			}
			req := app.MergeRequest{SpaceID: src.SpaceID, SourceID: src.ID, DryRun: !in.Commit, Message: in.Message}
			for _, r := range in.Resolutions {
				req.Resolutions = append(req.Resolutions, smriti.MergeResolution(r))
			}
			if in.Target != "" {
				tg, err := t.checkpoint(ctx, in.Target)
				if err != nil {
					return "", err
				}
				req.TargetID = &tg.ID
			}
			o, err := t.ops.Merge(ctx, req)
			if err != nil {
				return "", err
			}
			return formatMerge(o), nil
		})
	add(t, s, "smriti_verify", "Recompute a checkpoint's hash chain back to its roots.", readOnly,
		func(ctx context.Context, in checkpointArg) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			v, err := t.ops.Verify(ctx, c.ID)
			if err != nil {
				return "", err
			}
			if !v.OK {
				return "", smriti.Errorf(smriti.ECONFLICT, "hash chain of %s does not verify: first mismatch at %v (%d checked)", short(c.Hash), v.FirstMismatch, v.Checked)
			}
			return fmt.Sprintf("Verified `%s`: %d checkpoint(s) in its history, every hash matches.\n", short(c.Hash), v.Checked), nil
		})
	add(t, s, "smriti_why", "Where an item (decision, task, …) came from and how it changed, with turns and quotes.", readOnly,
		func(ctx context.Context, in whyIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			id, err := t.itemID(ctx, sp.ID, in.Item)
			if err != nil {
				return "", err
			}
			evs, err := t.ops.ItemHistory(ctx, sp.ID, id)
			if err != nil {
				return "", err
			}
			return render.RenderItemHistory(id, evs), nil
		})
	add(t, s, "smriti_context", "What a send would give the model (mode, checkpoints, turns, messages), without calling it.", readOnly,
		func(ctx context.Context, in contextIn) (string, error) {
			if strings.TrimSpace(in.Message) == "" {
				return "", smriti.Errorf(smriti.EUNPROCESSABLE, "message must not be empty")
			}
			var session smriti.ID
			var space *smriti.ID
			if in.Session != "" {
				id, err := smriti.ParseID("session", in.Session)
				if err != nil {
					return "", err
				}
				session = id
			} else {
				// What a new session of the space would start from; no
				// session is made for the preview.
				sp, err := t.space(ctx, in.Space)
				if err != nil {
					return "", err
				}
				space = &sp.ID
			}
			p, err := t.ops.PreviewContext(ctx, space, session, in.Message)
			if err != nil {
				return "", err
			}
			return formatPreview(p), nil
		})
	t.registerCoordination(s)
	t.registerSearch(s)
	t.registerProposals(s)
}

type whyIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
	Item  string `json:"item" jsonschema:"id (d-7f3a9c) or words of its text"`
}

// itemID resolves an item id or words of an item's text against the items
// of the newest checkpoint of main (else of any branch).
func (t *tools) itemID(ctx context.Context, space smriti.ID, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if smriti.ValidItemID(ref) {
		return ref, nil
	}
	heads, err := t.ops.Checkpoints(ctx, space, smriti.MainBranch)
	if err != nil {
		return "", err
	}
	if len(heads) == 0 {
		if heads, err = t.ops.Checkpoints(ctx, space, ""); err != nil {
			return "", err
		}
	}
	if len(heads) == 0 {
		return "", smriti.Errorf(smriti.ENOTFOUND, "The space has no checkpoint, so no items")
	}
	items, err := t.ops.CheckpointItems(ctx, heads[0].ID)
	if err != nil {
		return "", err
	}
	it, err := render.FindItem(items, ref)
	if err != nil {
		return "", err
	}
	return it.ID, nil
}

type stateIn struct {
	Space    string `json:"space" jsonschema:"space name or UUID"`
	Preview  bool   `json:"preview,omitempty" jsonschema:"800-char artifact previews"`
	Compact  bool   `json:"compact,omitempty" jsonschema:"artifacts by label only (session start)"`
	MainOnly bool   `json:"main_only,omitempty" jsonschema:"only main's head"`
	Since    string `json:"since,omitempty" jsonschema:"checkpoint last seen: list main's changes since"`
	All      bool   `json:"all,omitempty" jsonschema:"every item, not a budgeted brief"`
	AsOf     string `json:"as_of,omitempty" jsonschema:"state then: checkpoint id/hash prefix or RFC 3339 time; each item with its span"`
	Branch   string `json:"branch,omitempty" jsonschema:"with as_of a time: the branch (default main)"`
}

type claimIn struct {
	Space      string  `json:"space" jsonschema:"space name or UUID"`
	Scope      string  `json:"scope" jsonschema:"what you will do"`
	Agent      string  `json:"agent,omitempty" jsonschema:"agent name (default: you)"`
	Branch     string  `json:"branch,omitempty" jsonschema:"default main"`
	TaskID     string  `json:"task_id,omitempty" jsonschema:"task id from the brief"`
	WorktreeID string  `json:"worktree_id,omitempty" jsonschema:"worktree UUID"`
	IntentType string  `json:"intent_type,omitempty" jsonschema:"implement (default), review, investigate, docs, test"`
	TTLHours   float64 `json:"ttl_hours,omitempty" jsonschema:"lease in hours (default 4)"`
}

type claimDoneIn struct {
	ClaimID string `json:"claim_id" jsonschema:"UUID"`
	Abandon bool   `json:"abandon,omitempty" jsonschema:"abandoned, not done"`
}

type listClaimsIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
	All   bool   `json:"all,omitempty" jsonschema:"also expired, done, abandoned"`
}

type worktreeOpenIn struct {
	Space      string `json:"space" jsonschema:"space name or UUID"`
	Agent      string `json:"agent,omitempty" jsonschema:"agent name (default: you)"`
	Branch     string `json:"branch,omitempty" jsonschema:"git branch (default smriti/AGENT/SUFFIX)"`
	BaseCommit string `json:"base_commit,omitempty" jsonschema:"default the project's HEAD"`
	BasePath   string `json:"base_path,omitempty" jsonschema:"absolute path to create"`
}

type worktreeListIn struct {
	Space         string `json:"space" jsonschema:"space name or UUID"`
	IncludeClosed bool   `json:"include_closed,omitempty" jsonschema:"also closed ones"`
}

type worktreeIn struct {
	WorktreeID string `json:"worktree_id" jsonschema:"id or 4+ char prefix"`
}

type worktreeCloseIn struct {
	WorktreeID string `json:"worktree_id" jsonschema:"id or 4+ char prefix"`
	Force      bool   `json:"force,omitempty" jsonschema:"even with uncommitted changes"`
}

func (t *tools) registerWorktrees(s *sdk.Server) {
	add(t, s, "smriti_worktree_open", "A git worktree of the space's project for an agent; work only there.", additive,
		func(ctx context.Context, in worktreeOpenIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.Agent == "" {
				in.Agent = t.agent(ctx)
			}
			w, err := t.ops.OpenWorktree(ctx, coord.WorktreeOpen{SpaceID: sp.ID, Agent: in.Agent, BranchName: in.Branch,
				BaseCommitSHA: in.BaseCommit, BasePath: in.BasePath})
			if err != nil {
				return "", err
			}
			base := ""
			if w.BaseCommitSHA != nil {
				base = *w.BaseCommitSHA
			}
			return fmt.Sprintf("Created worktree `%s` for `%s`.\nPath: `%s`\nBranch: `%s`\nBase: `%s`\n", w.ID, w.Agent, w.Path, w.BranchName, base), nil
		})
	add(t, s, "smriti_worktree_list", "A space's worktrees with drift (dirty files, ahead/behind).", readOnly,
		func(ctx context.Context, in worktreeListIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			wts, probes, err := t.ops.Worktrees(ctx, sp.ID, in.IncludeClosed)
			if err != nil {
				return "", err
			}
			return render.RenderWorktrees(wts, probes, in.IncludeClosed, ""), nil
		})
	add(t, s, "smriti_worktree_show", "Show one worktree.", readOnly, func(ctx context.Context, in worktreeIn) (string, error) {
		w, err := t.ops.Worktree(ctx, in.WorktreeID)
		if err != nil {
			return "", err
		}
		return render.RenderWorktree(w), nil
	})
	add(t, s, "smriti_worktree_close", "Remove a worktree (its branch stays); refuses uncommitted changes unless force.", destructive,
		func(ctx context.Context, in worktreeCloseIn) (string, error) {
			w, err := t.ops.CloseWorktree(ctx, in.WorktreeID, in.Force)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Closed worktree `%s` at `%s`.\n", w.ID, w.Path), nil
		})
}

// registerCoordination adds the tools over the state brief, claims and
// metrics.
func (t *tools) registerCoordination(s *sdk.Server) {
	t.registerWorktrees(s)
	t.registerReady(s)
	add(t, s, "smriti_state", "State brief: main's head, branches, claims, divergence. Call first.", readOnly,
		func(ctx context.Context, in stateIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.AsOf != "" {
				st, err := t.ops.StateAsOf(ctx, sp.ID, in.AsOf, in.Branch)
				if err != nil {
					return "", err
				}
				return render.RenderStateAsOf(sp.Name, st.Branch, st.Checkpoint, st.Items), nil
			}
			var q coord.StateQuery
			if in.Since != "" && !in.MainOnly {
				c, err := t.checkpoint(ctx, in.Since)
				if err != nil {
					return "", err
				}
				q.Since = &c.ID
			}
			b, err := t.ops.State(ctx, sp.ID, q)
			if err != nil {
				return "", err
			}
			if in.MainOnly {
				b.Branches, b.MoreBranches, b.Claims, b.MoreClaims = nil, 0, nil, 0
				b.Divergence, b.MoreDivergent, b.Freshness = nil, 0, nil
			}
			o := render.BriefOptions{Mode: render.BriefFull, Now: time.Now(), Tokens: tokenizer.CountO200K}
			switch {
			case in.Compact:
				o.Mode = render.BriefCompact
			case in.Preview:
				o.Mode = render.BriefPreview
			}
			if !in.All {
				o.Budget = render.CompactBriefBudget
			}
			return render.RenderBrief(b, o), nil
		})
	add(t, s, "smriti_claim", "Claim work before doing it, from main's head; a task_id is exclusive, other overlaps are listed.", additive,
		func(ctx context.Context, in claimIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if in.Agent == "" {
				in.Agent = t.agent(ctx)
			}
			req := coord.ClaimCreate{SpaceID: sp.ID, Agent: in.Agent, Scope: in.Scope, BranchName: in.Branch, TaskID: in.TaskID, Intent: in.IntentType}
			if in.TTLHours != 0 {
				ttl := coord.ClaimTTLHours(in.TTLHours)
				req.TTL = &ttl
			}
			if in.WorktreeID != "" {
				id, err := smriti.ParseID("worktree_id", in.WorktreeID)
				if err != nil {
					return "", err
				}
				req.WorktreeID = &id
			}
			b, err := t.ops.State(ctx, sp.ID, coord.StateQuery{})
			if err != nil {
				return "", err
			}
			if b.Head != nil {
				req.BaseCheckpointID = &b.Head.ID
			}
			c, collisions, err := t.ops.CreateClaim(ctx, req)
			if err != nil {
				return "", err
			}
			out := fmt.Sprintf("Claimed: [%s] %q on `%s` by `%s`\n\nClaim ID: `%s`\nExpires %s. Mark done with `smriti_claim_done(claim_id=%q)`.\n",
				c.Intent, c.Scope, c.BranchName, c.Agent, c.ID, c.ExpiresAt.UTC().Format(time.RFC3339), c.ID.String())
			if len(collisions) > 0 {
				out += fmt.Sprintf("\nCollides with %d live claim(s) — re-read state and consider complementary work:\n", len(collisions)) +
					render.RenderClaims(collisions, false)
			}
			return out, nil
		})
	add(t, s, "smriti_claim_done", "Mark a claim done (or abandoned).", idempotent,
		func(ctx context.Context, in claimDoneIn) (string, error) {
			id, err := smriti.ParseID("claim_id", in.ClaimID)
			if err != nil {
				return "", err
			}
			status := coord.ClaimDone
			if in.Abandon {
				status = coord.ClaimAbandoned
			}
			c, err := t.ops.FinishClaim(ctx, id, status)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Claim `%s` marked %s.\n", c.ID, c.Status), nil
		})
	add(t, s, "smriti_list_claims", "A space's live claims.", readOnly,
		func(ctx context.Context, in listClaimsIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cl, err := t.ops.Claims(ctx, sp.ID, in.All)
			if err != nil {
				return "", err
			}
			return render.RenderClaims(cl, in.All), nil
		})
	add(t, s, "smriti_metrics", "A space's coordination and state-quality metrics.", readOnly,
		func(ctx context.Context, in spaceIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			m, err := t.ops.Metrics(ctx, sp.ID)
			if err != nil {
				return "", err
			}
			return render.RenderMetrics(m), nil
		})
}
