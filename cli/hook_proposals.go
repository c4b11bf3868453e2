package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"smriti"
	"smriti/client"
	"smriti/proposal"
	"smriti/wire"
)

// A hook's draft waits on the server as a proposal (source "hook"): the
// brief, the web inbox, `smriti proposals` and every other agent see it,
// and it survives the work tree. Earlier versions kept it in
// .smriti/pending-draft.json; the next hook that runs moves such a file
// into a proposal and deletes it.

// proposalOfDraft is a hook's draft as a proposal: its content, its items
// with their ids, its base, its source turns, and where the code stood.
func proposalOfDraft(ctx context.Context, env *Env, dir string, p *pendingDraft) wire.ProposalRequest {
	d := p.Draft
	msg := strings.TrimSpace(d.Title)
	if msg == "" {
		msg = "Agent session checkpoint"
	}
	sid := p.SessionID.String()
	agent := firstNonEmpty(agentName(""), "claude-code")
	req := wire.ProposalRequest{ContentFields: wire.ContentFields{Message: &msg, Summary: d.Summary, Objective: d.Objective, Decisions: d.Decisions,
		Assumptions: d.Assumptions, Tasks: d.Tasks, OpenQuestions: d.OpenQuestions, Entities: d.Entities},
		SessionID: &sid, Source: "hook", AuthorAgent: &agent, Items: citeDraft(ctx, dir, p.Items), Model: p.Model}
	if dir != "" {
		req.ProjectRoot = &dir
		req.Git = gitOf(ctx, env, &dir)
	}
	if src := p.Source; src != nil {
		from, to, s := src.FromSeq, src.ToSeq, src.SessionID.String()
		req.SourceTurns = &wire.SourceTurnsIn{SessionID: &s, FromSeq: &from, ToSeq: &to}
	}
	if p.Base != nil {
		b := p.Base.String()
		req.BaseCheckpointID = &b
	}
	return req
}

// keepDraft saves a hook's draft as a pending proposal.
func keepDraft(ctx context.Context, env *Env, c *client.Client, dir string, p *pendingDraft) (*wire.ProposalOut, error) {
	return c.SaveProposal(ctx, p.SpaceID, proposalOfDraft(ctx, env, dir, p))
}

// movePending moves a pending-draft file an earlier version left in dir
// into a proposal, then deletes the file. No file is no work; a file that
// cannot be moved stays, and the reason is returned.
func movePending(ctx context.Context, env *Env, c *client.Client, dir string) error {
	p, err := readPending(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the pending draft %s cannot be read (%v); it stays where it is", pendingDraftPath(dir), err)
	}
	out, err := keepDraft(ctx, env, c, dir, p)
	if err != nil {
		return fmt.Errorf("the pending draft %s stays where it is: %s", pendingDraftPath(dir), smriti.ErrorMessage(err))
	}
	if err := os.Remove(pendingDraftPath(dir)); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Smriti: moved the pending draft of %s into proposal %s %q (review: smriti proposals show %s)\n",
		p.CreatedAt.UTC().Format(time.RFC3339), shortID(out.ID), out.Title, shortID(out.ID))
	return nil
}

// reportMove runs movePending and prints why a file could not be moved;
// a hook goes on either way.
func reportMove(ctx context.Context, env *Env, c *client.Client, dir string) {
	if err := movePending(ctx, env, c, dir); err != nil {
		// movePending's errors are sentences already (never "internal error").
		fmt.Fprintf(env.Stdout, "Smriti: %s\n", err)
	}
}

// coversTurns reports whether saved includes every turn of st (same
// session).
func coversTurns(saved, st *smriti.SourceTurns) bool {
	if saved == nil || st == nil {
		return false
	}
	return saved.SessionID == st.SessionID && saved.FromSeq <= st.FromSeq && saved.ToSeq >= st.ToSeq
}

// rejectCovered rejects the hook proposals a save made stale: those whose
// turns the saved draft covers (drafts read every turn no checkpoint
// consumed, so the save holds what they proposed, or newer).
func rejectCovered(ctx context.Context, env *Env, c *client.Client, space smriti.ID, saved *smriti.SourceTurns) error {
	ps, err := c.Proposals(ctx, space, proposal.Pending)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Source != "hook" || !coversTurns(saved, p.SourceTurns) {
			continue
		}
		if _, err := c.RejectProposal(ctx, space, p.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Smriti: rejected proposal %s of %s: this save covers its turns\n", shortID(p.ID), p.CreatedAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// newestHookProposal is the newest pending proposal a hook saved in space.
func newestHookProposal(ctx context.Context, c *client.Client, space *wire.Repo) (*wire.ProposalOut, error) {
	ps, err := c.Proposals(ctx, space.ID, proposal.Pending)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if ps[i].Source == "hook" {
			return &ps[i], nil
		}
	}
	return nil, &hinted{err: smriti.Errorf(smriti.ENOTFOUND, "no draft from a hook waits in %s", space.Name),
		hint: "`smriti proposals` lists what waits; `smriti hook pre-compact` without --auto-save saves one."}
}
