package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/app"
	"smriti/internal/textutil"
	"smriti/remote"
)

// SyncOps are the sync use cases (app.App's, with its signatures): bring
// what another copy of a space holds, integrate it, send it what it lacks.
type SyncOps interface {
	// Fetch moves only remote-tracking heads; ENOTFOUND for a remote the
	// space does not have.
	Fetch(ctx context.Context, space smriti.ID, name string) (*app.FetchResult, error)
	// Pull fetches and integrates; conflicts follow in.Policy.
	Pull(ctx context.Context, in app.PullRequest) (*app.PullResult, error)
	// Push and PushProposal answer ECONFLICT (remote.MovedError) when the
	// remote's branch is not where this copy last saw it.
	Push(ctx context.Context, space smriti.ID, name, branch string) (*app.PushResult, error)
	PushProposal(ctx context.Context, space smriti.ID, name, branch string) (*app.PushResult, error)
}

type fetchIn struct {
	Space  string `json:"space" jsonschema:"space name or UUID"`
	Remote string `json:"remote,omitempty" jsonschema:"remote name (default origin)"`
}

type pullIn struct {
	Space      string `json:"space" jsonschema:"space name or UUID"`
	Remote     string `json:"remote,omitempty" jsonschema:"remote name (default origin)"`
	Branch     string `json:"branch,omitempty" jsonschema:"branch (default main)"`
	OnConflict string `json:"on_conflict,omitempty" jsonschema:"propose (default: keep yours, their side waits as a proposal), fail, ours or theirs"`
}

type pushIn struct {
	Space   string `json:"space" jsonschema:"space name or UUID"`
	Remote  string `json:"remote,omitempty" jsonschema:"remote name (default origin)"`
	Branch  string `json:"branch,omitempty" jsonschema:"branch (default main)"`
	Propose bool   `json:"propose,omitempty" jsonschema:"land it as a proposal on the remote (a Smriti server) instead of moving its branch"`
}

// syncAnswer is the structured content of a sync tool's answer.
type syncAnswer struct {
	Remote      string     `json:"remote"`
	Outcome     string     `json:"outcome,omitempty"`
	Head        string     `json:"head,omitempty"`
	Checkpoints int        `json:"checkpoints"`
	Sessions    int        `json:"sessions"`
	Turns       int        `json:"turns"`
	Conflicts   []string   `json:"conflicts,omitempty"`
	ProposalID  *smriti.ID `json:"proposal_id,omitempty"`
	Divergence  []string   `json:"divergence,omitempty"`
}

// The sync tools reach another copy (a server or a git repository): an
// open world.
var (
	syncRead  = &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)}
	syncWrite = &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
)

// registerSync adds fetch, pull and push (the all toolset).
func (t *tools) registerSync(s *sdk.Server) {
	addReply(t, s, "smriti_fetch", "Fetch from a remote (another Smriti server or a git repository): what it has, verified; moves no local branch, says how main stands (ahead/behind).", syncRead, t.fetch)
	addReply(t, s, "smriti_pull", "Pull from a remote: fetch, then fast-forward or merge by item id; items both copies changed wait as a proposal by default.", syncWrite, t.pull)
	addReply(t, s, "smriti_push", "Push a branch to a remote; it moves by fast-forward only. Refused when the remote moved: the answer names the pull to run first.", syncWrite, t.push)
}

func remoteName(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "origin"
	}
	return s
}

func countsText(c remote.Counts) string {
	if c.Checkpoints+c.Sessions+c.Turns == 0 {
		return "nothing new"
	}
	return fmt.Sprintf("%d checkpoint(s), %d session(s), %d turn(s)", c.Checkpoints, c.Sessions, c.Turns)
}

func divergenceLines(b *strings.Builder, ds []remote.Divergence) []string {
	var out []string
	for _, d := range ds {
		line := d.Describe(time.Now())
		out = append(out, line)
		b.WriteString("- " + line + "\n")
	}
	return out
}

func (t *tools) fetch(ctx context.Context, in fetchIn) (reply, error) {
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	name := remoteName(in.Remote)
	f, err := t.ops.Fetch(ctx, sp.ID, name)
	if err != nil {
		return reply{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Fetched from %s: %s\n", name, countsText(f.Staged))
	ans := syncAnswer{Remote: name, Checkpoints: f.Staged.Checkpoints, Sessions: f.Staged.Sessions, Turns: f.Staged.Turns}
	ans.Divergence = divergenceLines(&b, f.Divergence)
	for _, d := range f.Divergence {
		if d.Behind > 0 {
			fmt.Fprintf(&b, "Bring it in with smriti_pull {\"space\": %q, \"remote\": %q}\n", sp.Name, name)
			break
		}
	}
	return reply{Text: b.String(), Data: ans}, nil
}

func (t *tools) pull(ctx context.Context, in pullIn) (reply, error) {
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	policy, err := remote.ParsePolicy(in.OnConflict)
	if err != nil {
		return reply{}, err
	}
	name := remoteName(in.Remote)
	res, err := t.ops.Pull(ctx, app.PullRequest{SpaceID: sp.ID, Remote: name, Branch: in.Branch, Policy: policy})
	if err != nil {
		return reply{}, err
	}
	ans := syncAnswer{Remote: name, Outcome: res.Outcome, Checkpoints: res.Applied.Checkpoints, Sessions: res.Applied.Sessions, Turns: res.Applied.Turns}
	head := "none"
	if res.Head != nil {
		head, ans.Head = textutil.ShortHash(res.Head.Hash), res.Head.Hash
	}
	var b strings.Builder
	switch res.Outcome {
	case app.PullUpToDate:
		fmt.Fprintf(&b, "Already up to date with %s (head %s)\n", name, head)
	case app.PullFastForward:
		fmt.Fprintf(&b, "Fast-forwarded to %s from %s\n", head, name)
	default:
		fmt.Fprintf(&b, "Merged %s: head %s\n", name, head)
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(&b, "%d item(s) changed on both copies:\n", len(res.Conflicts))
		for _, cf := range res.Conflicts {
			ans.Conflicts = append(ans.Conflicts, cf.Key)
			fmt.Fprintf(&b, "- %s %s: here %q, %s %q\n", cf.Field, cf.Key, cf.Ours, name, cf.Theirs)
		}
	}
	if res.Proposal != nil {
		ans.ProposalID = &res.Proposal.ID
		short := res.Proposal.ID.String()[:8]
		fmt.Fprintf(&b, "Kept this copy's side; proposal `%s` holds %s's side: smriti_accept_proposal takes it, smriti_reject_proposal keeps this one. Then smriti_push {\"space\": %q, \"remote\": %q}.\n",
			short, name, sp.Name, name)
	}
	return reply{Text: b.String(), Data: ans}, nil
}

func (t *tools) push(ctx context.Context, in pushIn) (reply, error) {
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	name := remoteName(in.Remote)
	pushFn := t.ops.Push
	if in.Propose {
		pushFn = t.ops.PushProposal
	}
	res, err := pushFn(ctx, sp.ID, name, in.Branch)
	if err != nil {
		return reply{}, withRetry(err, sp.Name, name, in.Branch)
	}
	ans := syncAnswer{Remote: name, Outcome: res.Outcome, Head: res.NewHead, Checkpoints: res.Stored.Checkpoints, Sessions: res.Stored.Sessions,
		Turns: res.Stored.Turns, ProposalID: res.Proposal}
	var text string
	switch {
	case res.Outcome == app.PushUpToDate:
		text = fmt.Sprintf("%s on %s is already at %s\n", res.Branch, name, textutil.ShortHash(res.NewHead))
	case res.Proposal != nil:
		text = fmt.Sprintf("Proposed %s's state on %s as proposal `%s`; it waits there for review\n", res.Branch, name, res.Proposal.String()[:8])
	default:
		old := "nothing"
		if res.OldHead != nil {
			old = textutil.ShortHash(*res.OldHead)
		}
		text = fmt.Sprintf("Pushed %s to %s: %s → %s (%s)\n", res.Branch, name, old, textutil.ShortHash(res.NewHead), countsText(res.Stored))
	}
	return reply{Text: text, Data: ans}, nil
}

// withRetry adds to a refused push (the remote moved) the calls that
// settle it: pull, then push again.
func withRetry(err error, space, name, branch string) error {
	if smriti.ErrorCode(err) != smriti.ECONFLICT {
		return err
	}
	pullArgs := map[string]any{"space": space, "remote": name}
	if branch != "" {
		pullArgs["branch"] = branch
	}
	retry := []map[string]any{{"tool": "smriti_pull", "arguments": pullArgs}, {"tool": "smriti_push", "arguments": pullArgs}}
	data := map[string]any{"retry": retry}
	if m, ok := smriti.ErrorData(err).(map[string]any); ok {
		for k, v := range m {
			if k != "message" {
				data[k] = v
			}
		}
	}
	msg := smriti.ErrorMessage(err) + fmt.Sprintf("\nRetry: smriti_pull {\"space\": %q, \"remote\": %q}, settle any conflict it leaves as a proposal, then smriti_push again.", space, name)
	return &smriti.Error{Code: smriti.ECONFLICT, Message: msg, Data: data, Err: err}
}
