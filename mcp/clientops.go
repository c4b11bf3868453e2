package mcp

import (
	"context"

	"smriti"
	"smriti/app"
	"smriti/client"
	"smriti/coord"
	"smriti/intelligence"
	"smriti/internal/pages"
	"smriti/wire"
)

// ClientOps implements Ops over HTTP, for `smriti mcp` on stdio: the
// same tools as the server's /mcp, talking to a Smriti server through the
// Go client.
type ClientOps struct{ c *client.Client }

// NewClientOps returns the Ops of a server c speaks to.
func NewClientOps(c *client.Client) ClientOps { return ClientOps{c: c} }

var _ Ops = ClientOps{}

func (o ClientOps) AllSpaces(ctx context.Context) ([]*smriti.Space, error) {
	rs, err := o.c.Spaces(ctx)
	if err != nil {
		return nil, err
	}
	return wire.SpacesOf(rs), nil
}

func (o ClientOps) Space(ctx context.Context, id smriti.ID) (*smriti.Space, error) {
	r, err := o.c.Space(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.Space(), nil
}

func (o ClientOps) CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error) {
	r, err := o.c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: &in.Name, Description: &in.Description, ProjectRoot: in.ProjectRoot, Metadata: in.Metadata})
	if err != nil {
		return nil, err
	}
	return r.Space(), nil
}

func (o ClientOps) DeleteSpace(ctx context.Context, id smriti.ID) error {
	return o.c.DeleteSpace(ctx, id)
}

func (o ClientOps) Checkpoint(ctx context.Context, id smriti.ID) (*smriti.Checkpoint, error) {
	c, err := o.c.Checkpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.Checkpoint(), nil
}

func (o ClientOps) ResolveCheckpoint(ctx context.Context, space *smriti.ID, ref string) (*smriti.Checkpoint, error) {
	c, err := o.c.ResolveCheckpoint(ctx, ref, space)
	if err != nil {
		return nil, err
	}
	return c.Checkpoint(), nil
}

func (o ClientOps) AllCheckpoints(ctx context.Context, space smriti.ID, branch string) ([]*smriti.Checkpoint, error) {
	cs, err := o.c.Checkpoints(ctx, space, branch)
	if err != nil {
		return nil, err
	}
	out := make([]*smriti.Checkpoint, len(cs))
	for i := range cs {
		out[i] = cs[i].Checkpoint()
	}
	return out, nil
}

func (o ClientOps) CommitBase(ctx context.Context, space, session smriti.ID) (*smriti.ID, error) {
	return o.c.CommitBase(ctx, space, session)
}

// Save is app.App.Save over the API: the extraction is the server's,
// settled for this save (its base and default title), and the request takes
// it by the App's own rule (app.SaveRequest.TakeDraft); the author is
// settled by the server when it commits.
func (o ClientOps) Save(ctx context.Context, in app.SaveRequest) (*app.Saved, error) {
	out := &app.Saved{}
	if in.Document != nil {
		d, err := o.c.ExtractForSave(ctx, in.SpaceID, in.SessionID, *in.Document, in.UseMock, in.BaseCheckpointID)
		if err != nil {
			return nil, err
		}
		res := wire.DraftResultOf(&d.DraftFields, d.Artifacts, d.Warnings, &d.ChangeView)
		in.TakeDraft(res, in.BaseCheckpointID)
		out.Extracted = res
	}
	out.Request = in.CheckpointCommit
	var err error
	switch {
	case in.DryRun:
	case in.Propose:
		out.Proposal, err = o.SaveProposal(ctx, in.Proposal())
	default:
		out.Checkpoint, err = o.commit(ctx, in.CheckpointCommit)
		if out.Checkpoint != nil {
			out.Redactions = out.Checkpoint.Redactions
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (o ClientOps) commit(ctx context.Context, in smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
	ct := in.Content
	content := wire.ContentFields{Message: &ct.Message, Summary: ct.Summary, Objective: ct.Objective, Decisions: ct.Decisions,
		Assumptions: ct.Assumptions, Tasks: ct.Tasks, OpenQuestions: ct.OpenQuestions, Entities: ct.Entities, Artifacts: ct.Artifacts}
	items := wire.ItemFields{Items: wire.ItemsInOf(in.Items), Model: in.Model, Resolutions: in.Resolutions}
	if in.BaseCheckpointID != nil {
		b := in.BaseCheckpointID.String()
		items.BaseCheckpointID = &b
	}
	git := wire.GitStateInOf(in.Git)
	var c *wire.Commit
	var err error
	if in.SessionID == smriti.NilID {
		// No session: onto main's head, and none is made.
		c, err = o.c.CommitToSpace(ctx, in.SpaceID, wire.SpaceCommitRequest{ContentFields: content, AuthorAgent: in.AuthorAgent,
			ProjectRoot: in.ProjectRoot, ItemFields: items, Git: git})
	} else {
		sp, se := in.SpaceID.String(), in.SessionID.String()
		c, err = o.c.Commit(ctx, wire.CommitRequest{RepoID: &sp, SessionID: &se, AuthorAgent: in.AuthorAgent, ProjectRoot: in.ProjectRoot,
			ContentFields: content, ItemFields: items, Git: git})
	}
	if err != nil {
		return nil, err
	}
	return c.Checkpoint(), nil
}

func (o ClientOps) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	return o.c.DeleteCheckpoint(ctx, id, cascade)
}

func (o ClientOps) AddNote(ctx context.Context, id smriti.ID, in smriti.NoteCreate) (*smriti.Note, error) {
	n, err := o.c.AddNote(ctx, id, in.Text, in.Author, in.Kind)
	if err != nil {
		return nil, err
	}
	return &smriti.Note{ID: n.ID, CheckpointID: n.CheckpointID, Author: n.Author, Text: n.Text, Kind: n.Kind, CreatedAt: n.CreatedAt, Redactions: n.Redactions}, nil
}

func (o ClientOps) VerifyCheckpoint(ctx context.Context, id smriti.ID) (*smriti.Verification, error) {
	v, err := o.c.Verify(ctx, id)
	if err != nil {
		return nil, err
	}
	return &smriti.Verification{OK: v.OK, Checked: v.Checked, FirstMismatch: v.FirstMismatch}, nil
}

func (o ClientOps) Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error) {
	r, err := o.c.Review(ctx, id)
	if err != nil {
		return nil, err
	}
	return &intelligence.Review{Issues: r.Issues, Suggestions: r.Suggestions}, nil
}

func (o ClientOps) Compare(ctx context.Context, a, b smriti.ID) (*app.Comparison, error) {
	r, err := o.c.Compare(ctx, a, b)
	if err != nil {
		return nil, err
	}
	out := &app.Comparison{A: r.CheckpointA.Checkpoint(), B: r.CheckpointB.Checkpoint(), Diff: r.Diff.CheckpointDiff()}
	if r.Diff.CommonAncestorCommitID != nil {
		out.Ancestor = &smriti.Checkpoint{ID: *r.Diff.CommonAncestorCommitID}
		if r.Diff.CommonAncestorCommitHash != nil {
			out.Ancestor.Hash = *r.Diff.CommonAncestorCommitHash
		}
	}
	return out, nil
}

func (o ClientOps) ForkSession(ctx context.Context, in smriti.ForkCreate) (*smriti.Session, error) {
	sp, cp := in.SpaceID.String(), in.CheckpointID.String()
	r, err := o.c.Fork(ctx, wire.ForkRequest{SpaceID: &sp, CheckpointID: &cp, BranchName: in.BranchName, Provider: in.Provider, Model: in.Model})
	if err != nil {
		return nil, err
	}
	return r.Session.Session(), nil
}

func (o ClientOps) SetBranchDisposition(ctx context.Context, space smriti.ID, branch, disposition string) (int, error) {
	r, err := o.c.SetDisposition(ctx, space, branch, disposition)
	if err != nil {
		return 0, err
	}
	return r.SessionsUpdated, nil
}

func (o ClientOps) Merge(ctx context.Context, in app.MergeRequest) (*app.MergeOutcome, error) {
	sp, src := in.SpaceID.String(), in.SourceID.String()
	req := wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src, Resolutions: in.Resolutions}
	if in.TargetID != nil {
		t := in.TargetID.String()
		req.TargetCheckpointID = &t
	}
	if in.Message != "" {
		req.Message = &in.Message
	}
	if in.DryRun {
		p, err := o.c.MergePreview(ctx, req)
		if err != nil {
			return nil, err
		}
		m := p.Merged
		return &app.MergeOutcome{Merged: smriti.Content{Message: m.Message, Summary: m.Summary, Objective: m.Objective, Decisions: m.Decisions,
			Assumptions: m.Assumptions, Tasks: m.Tasks, OpenQuestions: m.OpenQuestions, Entities: m.Entities, Artifacts: m.Artifacts},
			Conflicts: p.Conflicts}, nil
	}
	r, err := o.c.Merge(ctx, req)
	if err != nil {
		return nil, err
	}
	cp := r.Checkpoint.Checkpoint()
	return &app.MergeOutcome{Checkpoint: cp, Merged: cp.Content,
		Conflicts: []smriti.MergeConflict{}, Resolved: r.ConflictsResolved}, nil
}

func (o ClientOps) PreviewContext(ctx context.Context, space *smriti.ID, req app.SendRequest) (*ContextPreview, error) {
	p, err := o.c.PreviewContext(ctx, sendBody(space, req))
	if err != nil {
		return nil, err
	}
	out := &ContextPreview{Mode: p.Mode, Provider: p.Provider, Model: p.Model, Checkpoints: make([]app.PreviewCheckpoint, 0, len(p.Checkpoints)),
		TurnCount: p.TurnCount, DroppedTurns: p.DroppedTurns, HistoryBudget: p.HistoryBudget, TokenEstimate: p.TokenEstimate,
		ExactTokens: p.ExactTokens, ReplyTokens: p.ReplyTokens, LastUsage: p.LastUsage, Messages: p.Messages,
		ContextTurns: app.ContextTurns{AllowedFromSeq: p.AllowedFromSeq, StoppedSeqs: p.StoppedTurns}}
	for _, c := range p.Checkpoints {
		out.Checkpoints = append(out.Checkpoints, app.PreviewCheckpoint{ID: c.ID, Hash: c.CommitHash, Message: c.Message, BranchName: c.BranchName})
	}
	if r := p.TurnRange; r != nil {
		out.FromSeq, out.ToSeq = &r.FromSeq, &r.ToSeq
	}
	if m := p.Mount; m != nil {
		out.Mount = &smriti.Mount{CheckpointID: m.CheckpointID, BaseSeq: m.HistoryBaseSeq}
	}
	return out, nil
}

// sendBody is the request body of a send (or its preview): in the session
// req names, or with none, a new session of space. An explicit unmount
// has no body form the client sends; previews over the API keep the mount.
func sendBody(space *smriti.ID, req app.SendRequest) wire.SendRequest {
	out := wire.SendRequest{Message: &req.Message, Provider: req.Provider, Model: req.Model, UseMock: req.UseMock,
		MemoryScope: req.Context.MemoryScope, HistoryBaseSeq: req.Context.HistoryBaseSeq, ClientRequestID: req.IdempotencyKey,
		HistoryTokenBudget: req.HistoryBudget}
	if req.SessionID != smriti.NilID {
		sid := req.SessionID.String()
		out.SessionID = &sid
	} else if space != nil {
		sp := space.String()
		out.RepoID = &sp
	}
	if m := req.Context.MountedCheckpointID; m != nil {
		id := m.String()
		out.MountedCheckpointID = &id
	}
	return out
}

func (o ClientOps) SpaceState(ctx context.Context, space smriti.ID, q coord.StateQuery) (*coord.StateBrief, error) {
	st, err := o.c.State(ctx, space, client.StateOptions{Since: q.Since, Session: q.SessionID})
	if err != nil {
		return nil, err
	}
	return st.Brief(), nil
}

func (o ClientOps) StateAsOf(ctx context.Context, space smriti.ID, ref, branch string) (*app.AsOfState, error) {
	st, err := o.c.StateAsOf(ctx, space, ref, branch)
	if err != nil {
		return nil, err
	}
	return &app.AsOfState{Branch: st.Branch, Checkpoint: st.Checkpoint.Checkpoint(), Head: st.Head.Checkpoint(), Items: wire.DomainSpans(st)}, nil
}

func (o ClientOps) CreateClaim(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, []*coord.Claim, error) {
	sp := in.SpaceID.String()
	req := wire.ClaimRequest{SpaceID: &sp, Agent: &in.Agent, Scope: &in.Scope, BranchName: &in.BranchName, IntentType: &in.Intent}
	if in.TaskID != "" {
		req.TaskID = &in.TaskID
	}
	if in.BaseCheckpointID != nil {
		b := in.BaseCheckpointID.String()
		req.BaseCommitID = &b
	}
	if in.WorktreeID != nil {
		w := in.WorktreeID.String()
		req.WorktreeID = &w
	}
	if in.TTL != nil {
		h := in.TTL.Hours()
		req.TTLHours = &h
	}
	out, err := o.c.Claim(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	collisions := make([]*coord.Claim, len(out.Collisions))
	for i := range out.Collisions {
		collisions[i] = out.Collisions[i].Claim()
	}
	return out.ClaimOut.Claim(), collisions, nil
}

func (o ClientOps) FinishClaim(ctx context.Context, id smriti.ID, status string) (*coord.Claim, error) {
	c, err := o.c.FinishClaim(ctx, id, status)
	if err != nil {
		return nil, err
	}
	return c.Claim(), nil
}

func (o ClientOps) AllClaims(ctx context.Context, space smriti.ID, includeExpired bool) ([]*coord.Claim, error) {
	opts := client.ClaimsOptions{IncludeExpired: includeExpired}
	return pages.All(func(after string) ([]*coord.Claim, string, error) {
		opts.After = after
		page, next, err := o.c.Claims(ctx, space, opts)
		claims := make([]*coord.Claim, len(page))
		for i := range page {
			claims[i] = page[i].Claim()
		}
		return claims, next, err
	})
}

func (o ClientOps) SpaceMetricsView(ctx context.Context, space smriti.ID) (coord.MetricsView, error) {
	m, err := o.c.SpaceMetrics(ctx, space)
	if err != nil {
		return coord.MetricsView{}, err
	}
	return m.View(), nil
}

func (o ClientOps) OpenWorktree(ctx context.Context, in coord.WorktreeOpen) (*coord.Worktree, error) {
	sp := in.SpaceID.String()
	req := wire.WorktreeRequest{SpaceID: &sp, Agent: &in.Agent}
	if in.BranchName != "" {
		req.BranchName = &in.BranchName
	}
	if in.BaseCommitSHA != "" {
		req.BaseCommitSHA = &in.BaseCommitSHA
	}
	if in.BasePath != "" {
		req.BasePath = &in.BasePath
	}
	w, err := o.c.OpenWorktree(ctx, req)
	if err != nil {
		return nil, err
	}
	return w.Worktree(), nil
}

func (o ClientOps) Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]*coord.Worktree, map[smriti.ID]*coord.WorktreeProbe, error) {
	items, err := o.c.Worktrees(ctx, space, includeClosed)
	if err != nil {
		return nil, nil, err
	}
	wts, probes := wire.WorktreesOf(items)
	return wts, probes, nil
}

func (o ClientOps) Worktree(ctx context.Context, idOrPrefix string) (*coord.Worktree, error) {
	w, err := o.c.Worktree(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	return w.Worktree(), nil
}

func (o ClientOps) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*coord.Worktree, error) {
	w, err := o.c.CloseWorktree(ctx, idOrPrefix, force)
	if err != nil {
		return nil, err
	}
	return w.Worktree(), nil
}

func (o ClientOps) CheckpointItems(ctx context.Context, id smriti.ID) ([]smriti.Item, error) {
	items, err := o.c.CheckpointItems(ctx, id)
	if err != nil {
		return nil, err
	}
	return wire.DomainItems(items), nil
}

func (o ClientOps) Item(ctx context.Context, space smriti.ID, ref string) (*smriti.ItemAt, error) {
	h, err := o.c.ItemHistory(ctx, space, ref)
	if err != nil {
		return nil, err
	}
	return wire.DomainItemAt(h), nil
}

// ResolveItem asks the server which item ref names: the item's id when
// the answer is its newest version, else the version's name.
func (o ClientOps) ResolveItem(ctx context.Context, space smriti.ID, ref string) (string, error) {
	h, err := o.c.ResolveItem(ctx, space, ref)
	if err != nil {
		return "", err
	}
	if h.Latest {
		return h.Item.ID, nil
	}
	return h.Version, nil
}

func (o ClientOps) ReadyTasks(ctx context.Context, space smriti.ID, q coord.ReadyQuery) ([]coord.ReadyTask, error) {
	out, err := o.c.ReadyTasks(ctx, space, q.Limit)
	if err != nil {
		return nil, err
	}
	ts := make([]coord.ReadyTask, len(out.Tasks))
	for i, t := range out.Tasks {
		ts[i] = t.ReadyTask()
	}
	return ts, nil
}

func (o ClientOps) ClaimReady(ctx context.Context, in coord.ClaimCreate) (*coord.Claim, *coord.ReadyTask, error) {
	req := wire.ReadyClaimRequest{}
	if in.Agent != "" {
		req.Agent = &in.Agent
	}
	if in.TTL != nil {
		ttl := in.TTL.String()
		req.TTL = &ttl
	}
	out, err := o.c.ClaimReady(ctx, in.SpaceID, req)
	if err != nil {
		return nil, nil, err
	}
	t := out.Task.ReadyTask()
	return out.Claim.Claim(), &t, nil
}
