package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/coord"
	"smriti/render"
	"smriti/tokenizer"
)

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

// registerCoordination adds the tools over the state brief, worktrees,
// the ready queue, claims and metrics.
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
			b, err := t.ops.SpaceState(ctx, sp.ID, q)
			if err != nil {
				return "", err
			}
			if in.MainOnly {
				b.Branches, b.MoreBranches, b.Claims, b.MoreClaims = nil, 0, nil, 0
				b.Divergence, b.MoreDivergent, b.Freshness = nil, 0, nil
			}
			o := render.BriefAsk{Compact: in.Compact, Preview: in.Preview, All: in.All}.Options(time.Now(), tokenizer.CountO200K)
			return t.checkedBrief(ctx, sp, b, o), nil
		})
	t.registerClaims(s)
}

// registerClaims adds the tools that claim work and finish, list and
// measure claims.
func (t *tools) registerClaims(s *sdk.Server) {
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
			b, err := t.ops.SpaceState(ctx, sp.ID, coord.StateQuery{})
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
			cl, err := t.ops.AllClaims(ctx, sp.ID, in.All)
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
			m, err := t.ops.SpaceMetricsView(ctx, sp.ID)
			if err != nil {
				return "", err
			}
			return render.RenderMetrics(m), nil
		})
}
