package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"smriti"
	"smriti/app"
	"smriti/wire"
)

type createCheckpointIn struct {
	Space            string         `json:"space" jsonschema:"space name or UUID"`
	Content          any            `json:"content" jsonschema:"markdown handoff (the server's model extracts it as changes to the base), or an object saved as is: {message, summary, objective, decisions, assumptions, tasks, open_questions, entities, artifacts}"`
	Session          string         `json:"session,omitempty" jsonschema:"session UUID; a fork's puts it on its branch"`
	BaseCheckpointID string         `json:"base_checkpoint_id,omitempty" jsonschema:"checkpoint the content was written against (markdown default: the branch head); if the head moved on, your change is rebased onto it or the conflicts are listed"`
	Resolutions      []resolutionIn `json:"resolutions,omitempty" jsonschema:"settle a refused save's conflicts (resend with the same base_checkpoint_id)"`
	AuthorAgent      string         `json:"author_agent,omitempty" jsonschema:"who wrote it (default: you)"`
	ProjectRoot      string         `json:"project_root,omitempty" jsonschema:"absolute path; its git state is recorded"`
	DryRun           bool           `json:"dry_run,omitempty" jsonschema:"return the payload, create nothing"`
	Refs             []string       `json:"refs,omitempty" jsonschema:"code an added item cites, checked later: path[:from-to], or ITEM=path[:from-to] when several are added"`
}

// tweakSchema makes content required and one of its two real forms.
func (createCheckpointIn) tweakSchema(s *jsonschema.Schema) {
	s.Properties["content"].Types = []string{"string", "object"}
}

// commitAnswer is the structured content of a created checkpoint.
type commitAnswer struct {
	CheckpointID       smriti.ID  `json:"checkpoint_id"`
	CommitHash         string     `json:"commit_hash"`
	Branch             string     `json:"branch"`
	ParentCheckpointID *smriti.ID `json:"parent_checkpoint_id,omitempty"`
	RebasedFrom        *smriti.ID `json:"rebased_from,omitempty"`
}

func (t *tools) createCheckpoint(ctx context.Context, in createCheckpointIn) (reply, error) {
	switch c := in.Content.(type) {
	case map[string]any:
		return t.createStructuredCheckpoint(ctx, in, c)
	case string:
		if strings.TrimSpace(c) != "" {
			return t.createExtractedCheckpoint(ctx, in, c)
		}
	}
	return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content must be a non-empty markdown string or a checkpoint object")
}

// commitRequest is the write the tool's arguments ask for, with the base
// they name (nil when none is named).
func (t *tools) commitRequest(ctx context.Context, in createCheckpointIn, space smriti.ID) (smriti.CheckpointCommit, error) {
	req := smriti.CheckpointCommit{SpaceID: space}
	if in.Session != "" {
		id, err := smriti.ParseID("session", in.Session)
		if err != nil {
			return req, err
		}
		req.SessionID = id
	}
	if in.BaseCheckpointID != "" {
		c, err := t.checkpoint(ctx, in.BaseCheckpointID)
		if err != nil {
			return req, err
		}
		req.BaseCheckpointID = &c.ID
	}
	for _, r := range in.Resolutions {
		req.Resolutions = append(req.Resolutions, smriti.MergeResolution(r))
	}
	if in.AuthorAgent != "" {
		req.AuthorAgent = &in.AuthorAgent
	}
	if in.ProjectRoot != "" {
		req.ProjectRoot = &in.ProjectRoot
		req.Git = t.gitOf(ctx, in.ProjectRoot)
	}
	return req, nil
}

// createExtractedCheckpoint saves the markdown as extracted changes onto
// the base — the one named, else the checkpoint the write builds on (the
// session's branch head, or main's) — against that same base (app.Save).
// The extraction is settled first (a dry run) so the refs of this work
// tree are cited on its items before it is committed.
func (t *tools) createExtractedCheckpoint(ctx context.Context, in createCheckpointIn, markdown string) (reply, error) {
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	req, err := t.commitRequest(ctx, in, sp.ID)
	if err != nil {
		return reply{}, err
	}
	preview, err := t.ops.Save(ctx, app.SaveRequest{CheckpointCommit: req, Document: &markdown, DryRun: true})
	if err != nil {
		return reply{}, err
	}
	if in.DryRun {
		j, _ := json.MarshalIndent(preview.Extracted.Draft, "", "  ")
		return reply{Text: "Dry run — extracted payload (no checkpoint created):\n\n```json\n" + string(j) + "\n```\n"}, nil
	}
	req = preview.Request
	if err := t.citeWrite(ctx, &req, in.Refs, t.writeDirs(sp, in)); err != nil {
		return reply{}, err
	}
	return t.commit(ctx, req)
}

// createStructuredCheckpoint saves the object's fields (the checkpoint
// write's own) as given — no model is called. Items keep their ids by
// matching the parent's by text, as every checkpoint write does.
func (t *tools) createStructuredCheckpoint(ctx context.Context, in createCheckpointIn, obj map[string]any) (reply, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content: %v", err)
	}
	var f wire.ContentFields
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content: %v", err)
	}
	content := f.Content()
	if content.Message == "" {
		return reply{}, smriti.Errorf(smriti.EUNPROCESSABLE, "content.message must be a non-empty string (the checkpoint's title)")
	}
	if in.DryRun {
		j, _ := json.MarshalIndent(f, "", "  ")
		return reply{Text: "Dry run — payload (no checkpoint created):\n\n```json\n" + string(j) + "\n```\n"}, nil
	}
	sp, err := t.space(ctx, in.Space)
	if err != nil {
		return reply{}, err
	}
	req, err := t.commitRequest(ctx, in, sp.ID)
	if err != nil {
		return reply{}, err
	}
	req.Content = content
	if err := t.citeWrite(ctx, &req, in.Refs, t.writeDirs(sp, in)); err != nil {
		return reply{}, err
	}
	return t.commit(ctx, req)
}

// commit writes the checkpoint; the answer says when it was rebased.
func (t *tools) commit(ctx context.Context, req smriti.CheckpointCommit) (reply, error) {
	saved, err := t.ops.Save(ctx, app.SaveRequest{CheckpointCommit: req})
	if err != nil {
		return reply{}, err
	}
	c := saved.Checkpoint
	text := fmt.Sprintf("Created checkpoint `%s` on branch `%s`: %s\n", short(c.Hash), c.BranchName, c.Message)
	if c.RebasedFrom != nil && c.ParentID != nil {
		text += fmt.Sprintf("Rebased: the branch head moved past your base %s; your change was applied onto the head %s.\n", *c.RebasedFrom, *c.ParentID)
	}
	text += redactedText(c.Redactions)
	return reply{Text: text, Data: commitAnswer{CheckpointID: c.ID, CommitHash: c.Hash, Branch: c.BranchName,
		ParentCheckpointID: c.ParentID, RebasedFrom: c.RebasedFrom}}, nil
}

// conflictAnswer is the structured content of a save refused with
// conflicts: the server's answer and the arguments that retry it.
type conflictAnswer struct {
	*smriti.CommitConflict
	Retry conflictRetry `json:"retry"`
}

type conflictRetry struct {
	BaseCheckpointID smriti.ID      `json:"base_checkpoint_id"`
	Resolutions      []resolutionIn `json:"resolutions"`
}

// conflictText lists the conflicts of a refused save and how to retry it.
func conflictText(cc *smriti.CommitConflict, status int) (string, conflictAnswer) {
	retry := conflictRetry{BaseCheckpointID: cc.BaseCheckpointID, Resolutions: []resolutionIn{}}
	var b strings.Builder
	if status != 0 {
		fmt.Fprintf(&b, "HTTP %d\n", status)
	}
	fmt.Fprintf(&b, "%s\nNothing was saved. %d conflict(s) (ours = the branch head %s, theirs = your save):\n",
		cc.Message, len(cc.Conflicts), cc.HeadCheckpointID)
	for i, c := range cc.Conflicts {
		what := c.Field
		if c.Key != "" {
			what += " " + c.Key
		}
		fmt.Fprintf(&b, "%d. %s (%s)\n   base:   %s\n   ours:   %s\n   theirs: %s\n", i+1, what, c.Kind, c.Base, c.Ours, c.Theirs)
		retry.Resolutions = append(retry.Resolutions, resolutionIn{Field: c.Field, Key: c.Key, Choice: "theirs"})
	}
	j, _ := json.Marshal(retry.Resolutions)
	fmt.Fprintf(&b, "Retry: call smriti_create_checkpoint again with the same content, base_checkpoint_id=%q and resolutions=%s "+
		"(choose ours, theirs or base for each).\n", cc.BaseCheckpointID.String(), j)
	return b.String(), conflictAnswer{CommitConflict: cc, Retry: retry}
}

// redactedText says which secrets the write replaced before storing them
// ("" when none): nothing is replaced silently.
func redactedText(rs []smriti.Redaction) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "Redacted a secret in %s (%s): it is stored as [redacted: %s].\n", r.Field, r.Rule, r.Rule)
	}
	return b.String()
}
