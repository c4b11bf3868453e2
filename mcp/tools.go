package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/skills"
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

// add registers a tool whose handler returns markdown or an error.
func add[In any](t *tools, s *sdk.Server, name, desc string, ann *sdk.ToolAnnotations, h handler[In]) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc, Annotations: ann},
		func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			out, err := h(ctx, in)
			if err != nil {
				return t.fail(err), nil, nil
			}
			return text(out), nil, nil
		})
}

type noArgs struct{}

type checkpointArg struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID, or a unique prefix (7+ characters) of its id or hash"`
}

type showIn struct {
	CheckpointID  string `json:"checkpoint_id" jsonschema:"checkpoint UUID, or a unique prefix (7+ characters) of its id or hash"`
	FullArtifacts bool   `json:"full_artifacts,omitempty" jsonschema:"show artifacts in full instead of 800-character previews"`
}

type listCheckpointsIn struct {
	Space  string `json:"space" jsonschema:"space name or UUID"`
	Branch string `json:"branch,omitempty" jsonschema:"only checkpoints of this branch; empty lists every branch"`
}

type restoreIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or unique prefix"`
	Preview      bool   `json:"preview,omitempty" jsonschema:"800-character artifact previews instead of full content"`
}

type compareIn struct {
	CheckpointA   string `json:"checkpoint_a" jsonschema:"first checkpoint (UUID or unique prefix)"`
	CheckpointB   string `json:"checkpoint_b" jsonschema:"second checkpoint (UUID or unique prefix)"`
	FullArtifacts bool   `json:"full_artifacts,omitempty" jsonschema:"accepted for compatibility; artifacts are not diffed"`
}

type createSpaceIn struct {
	Name        string `json:"name" jsonschema:"the space's name"`
	Description string `json:"description,omitempty" jsonschema:"what the space is for"`
}

type forkIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint to fork from (UUID or unique prefix)"`
	Branch       string `json:"branch,omitempty" jsonschema:"new branch name; empty picks a free one"`
}

type createCheckpointIn struct {
	Space       string `json:"space" jsonschema:"space name or UUID"`
	Content     string `json:"content" jsonschema:"markdown handoff; decisions, tasks, questions and code blocks are extracted from it"`
	Session     string `json:"session,omitempty" jsonschema:"session UUID to write into (a fork's session puts the checkpoint on its branch)"`
	AuthorAgent string `json:"author_agent,omitempty" jsonschema:"stable name of the agent writing it"`
	ProjectRoot string `json:"project_root,omitempty" jsonschema:"absolute project directory"`
	DryRun      bool   `json:"dry_run,omitempty" jsonschema:"return the extracted payload without creating anything"`
}

type spaceIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
}

type noteIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or unique prefix"`
	Text         string `json:"text" jsonschema:"the note (up to 2000 characters)"`
	Author       string `json:"author,omitempty" jsonschema:"who writes it (default founder)"`
	Kind         string `json:"kind,omitempty" jsonschema:"note (default), milestone or noise"`
}

type closeBranchIn struct {
	Space       string `json:"space" jsonschema:"space name or UUID"`
	Branch      string `json:"branch" jsonschema:"branch name"`
	Disposition string `json:"disposition,omitempty" jsonschema:"integrated (default), abandoned or active"`
}

type installSkillIn struct {
	Target string `json:"target" jsonschema:"claude-code or codex"`
}

type deleteCheckpointIn struct {
	CheckpointID string `json:"checkpoint_id" jsonschema:"checkpoint UUID or unique prefix"`
	Cascade      bool   `json:"cascade,omitempty" jsonschema:"also delete descendants and the sessions forked from them"`
}

type resolutionIn struct {
	Field  string `json:"field" jsonschema:"the conflicting field: message, objective, summary, tasks or artifacts"`
	Key    string `json:"key,omitempty" jsonschema:"the conflicting item of a list field, as the preview names it"`
	Choice string `json:"choice" jsonschema:"ours, theirs, base, or custom"`
	Value  string `json:"value,omitempty" jsonschema:"the value to use with custom"`
}

type mergeIn struct {
	Source      string         `json:"source" jsonschema:"checkpoint to merge (UUID or unique prefix)"`
	Target      string         `json:"target,omitempty" jsonschema:"checkpoint to merge into; default the head of main"`
	Resolutions []resolutionIn `json:"resolutions,omitempty" jsonschema:"how to settle each conflict the preview listed"`
	Commit      bool           `json:"commit,omitempty" jsonschema:"write the merge checkpoint; false previews"`
	Message     string         `json:"message,omitempty" jsonschema:"title of the merge checkpoint"`
}

type contextIn struct {
	Space   string `json:"space" jsonschema:"space name or UUID"`
	Message string `json:"message" jsonschema:"the message a send would carry"`
	Session string `json:"session,omitempty" jsonschema:"session UUID; empty previews a new session of the space"`
}

func (t *tools) register(s *sdk.Server) {
	add(t, s, "smriti_list_spaces", "List the spaces.", readOnly, func(ctx context.Context, _ noArgs) (string, error) {
		sp, err := t.ops.Spaces(ctx)
		if err != nil {
			return "", err
		}
		return formatSpaces(sp), nil
	})
	add(t, s, "smriti_show_checkpoint", "Show one checkpoint: objective, summary, decisions, tasks, artifacts, notes.", readOnly,
		func(ctx context.Context, in showIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			return formatCheckpoint(c, in.FullArtifacts), nil
		})
	add(t, s, "smriti_list_checkpoints", "List a space's checkpoints, newest first, with full ids.", readOnly,
		func(ctx context.Context, in listCheckpointsIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cps, err := t.ops.Checkpoints(ctx, sp.ID, in.Branch)
			if err != nil {
				return "", err
			}
			return formatCheckpoints(cps), nil
		})
	add(t, s, "smriti_review_checkpoint", "Review a checkpoint for contradictions, hidden assumptions and instruction-like content (LLM-backed).",
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
			return formatReview(r), nil
		})
	add(t, s, "smriti_restore", "Continuation brief for a checkpoint (read-only; nothing changes).", readOnly,
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
	add(t, s, "smriti_compare", "Compare two checkpoints: shared and one-sided decisions, assumptions, tasks, and their common ancestor.", readOnly,
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
	add(t, s, "smriti_fork", "Start a session on a new branch from a checkpoint; checkpoint into that session to extend the branch.", additive,
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
	add(t, s, "smriti_create_checkpoint", "Create a checkpoint from a markdown handoff (extracted into structured state).", additive,
		t.createCheckpoint)
	add(t, s, "smriti_delete_space", "Delete a space with every checkpoint and session in it.", destructive,
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
	add(t, s, "smriti_checkpoint_note", "Annotate a checkpoint (note, milestone, noise) without changing it.", additive,
		func(ctx context.Context, in noteIn) (string, error) {
			c, err := t.checkpoint(ctx, in.CheckpointID)
			if err != nil {
				return "", err
			}
			if in.Author == "" {
				in.Author = "founder"
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
	add(t, s, "smriti_close_branch", "Mark every session of a branch integrated, abandoned or active.", idempotent,
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
	add(t, s, "smriti_install_skill", "Return the Smriti skill pack for a host with its suggested destination; writes no file.", readOnly,
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
	add(t, s, "smriti_delete_checkpoint", "Delete a checkpoint; refuses when others depend on it unless cascade.", destructive,
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
	add(t, s, "smriti_merge", "Merge a checkpoint into main's head (or target): preview conflicts with commit=false, then commit=true with resolutions.", additive,
		func(ctx context.Context, in mergeIn) (string, error) {
			src, err := t.checkpoint(ctx, in.Source)
			if err != nil {
				return "", err
			}
			req := smriti.MergeRequest{SpaceID: src.SpaceID, SourceID: src.ID, DryRun: !in.Commit, Message: in.Message}
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
	add(t, s, "smriti_context", "Show exactly what a send would give the model (mode, checkpoints, turns, messages) without calling it.", readOnly,
		func(ctx context.Context, in contextIn) (string, error) {
			if strings.TrimSpace(in.Message) == "" {
				return "", smriti.Errorf(smriti.EUNPROCESSABLE, "message must not be empty")
			}
			var session smriti.ID
			if in.Session != "" {
				id, err := smriti.ParseID("session", in.Session)
				if err != nil {
					return "", err
				}
				session = id
			} else {
				sp, err := t.space(ctx, in.Space)
				if err != nil {
					return "", err
				}
				se, err := t.ops.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Title: "mcp: context preview"})
				if err != nil {
					return "", err
				}
				session = se.ID
			}
			p, err := t.ops.PreviewContext(ctx, session, in.Message)
			if err != nil {
				return "", err
			}
			return formatPreview(p), nil
		})
	t.registerCoordination(s)
	t.registerSearch(s)
}

func (t *tools) createCheckpoint(ctx context.Context, in createCheckpointIn) (string, error) {
	if strings.TrimSpace(in.Content) == "" {
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "content must be a non-empty markdown string")
	}
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return "", err
	}
	var session smriti.ID
	if in.Session != "" {
		if session, err = smriti.ParseID("session", in.Session); err != nil {
			return "", err
		}
	}
	d, err := t.ops.Extract(ctx, in.Content)
	if err != nil {
		return "", err
	}
	content := d.Content()
	if strings.TrimSpace(content.Message) == "" {
		content.Message = "Extracted checkpoint"
	}
	if in.DryRun {
		j, _ := json.MarshalIndent(d, "", "  ")
		return "Dry run — extracted payload (no checkpoint created):\n\n```json\n" + string(j) + "\n```\n", nil
	}
	if in.Session == "" {
		se, err := t.ops.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Title: "mcp: " + smriti.Truncate(content.Message, 80), SeedFrom: "none"})
		if err != nil {
			return "", err
		}
		session = se.ID
	}
	req := smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: session, Content: content}
	if in.AuthorAgent != "" {
		req.AuthorAgent = &in.AuthorAgent
	}
	if in.ProjectRoot != "" {
		req.ProjectRoot = &in.ProjectRoot
	}
	c, err := t.ops.CommitCheckpoint(ctx, req)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Created checkpoint `%s` on branch `%s`: %s\n", short(c.Hash), c.BranchName, c.Message), nil
}

// registerCoordination adds the tools over claims, worktrees, metrics and
// the state brief.
func (t *tools) registerCoordination(s *sdk.Server) {}
