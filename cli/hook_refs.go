package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"smriti"
	"smriti/client"
	"smriti/gitcli"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/refcheck"
	"smriti/wire"
)

// maxEditRefs bounds the refs a hook attaches to one item for the files
// its turns edited.
const maxEditRefs = 3

// withEditRefs gives each item a hook's draft adds the files the agent
// edited in the turns the item came from: its origin's turns and the rest
// of that exchange (the agent's tool calls up to the next user message),
// at most maxEditRefs of them, each a whole-file ref at the work tree's
// text. Only files inside the git work tree holding dir are cited; a path
// outside it, or a file no longer there, is left out. Items are unchanged
// when dir is no work tree; an error reading the session's turns is
// returned with the items unchanged.
func withEditRefs(ctx context.Context, c *client.Client, dir string, session smriti.ID, items []wire.ItemIn) ([]wire.ItemIn, error) {
	if dir == "" || !anyDraftedFromTurns(items) {
		return items, nil
	}
	ck, err := refcheck.Open(ctx, gitcli.New(), dir)
	if err != nil {
		return items, nil
	}
	defer ck.Close()
	turns, err := c.AllTurns(ctx, session)
	if err != nil {
		return items, err
	}
	out := append([]wire.ItemIn(nil), items...)
	for i := range out {
		it := &out[i]
		if !draftedFromTurns(it) {
			continue
		}
		cited := map[string]bool{}
		for _, r := range it.Refs {
			cited[r.Path] = true
		}
		added := 0
		for _, p := range exchangeEdits(turns, *it.Origin.FromSeq, *it.Origin.ToSeq) {
			if added == maxEditRefs {
				break
			}
			rel, ok := workTreePath(ck.Root, dir, p)
			if !ok || cited[rel] {
				continue
			}
			ref, err := ck.Ref("", rel)
			if err != nil {
				continue
			}
			cited[rel] = true
			it.Refs = append(it.Refs, ref)
			added++
		}
	}
	return out, nil
}

// draftedFromTurns reports whether the draft adds it from known turns.
func draftedFromTurns(it *wire.ItemIn) bool {
	o := it.Origin
	return (it.ID == "" || it.Change != nil && it.Change.Op == smriti.OpAdd) && o != nil && o.FromSeq != nil && o.ToSeq != nil
}

func anyDraftedFromTurns(items []wire.ItemIn) bool {
	for i := range items {
		if draftedFromTurns(&items[i]) {
			return true
		}
	}
	return false
}

// exchangeEdits lists the files the agent's tool calls edited in the
// turns from..to and in those after to up to the next user message, in
// call order, each once.
func exchangeEdits(turns []wire.TurnOut, from, to int64) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range turns {
		s := t.SequenceNumber
		if s < from {
			continue
		}
		if s > to && t.Role == smriti.RoleUser {
			break
		}
		if t.Role != smriti.RoleAssistant || !importedTool(t.Metadata) {
			continue
		}
		for _, p := range portability.EditedPaths(t.Content) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// importedTool reports whether a turn's metadata says a transcript import
// wrote it from the agent's tool calls (not from a message, which may
// quote a tool line).
func importedTool(meta map[string]any) bool {
	imp, _ := meta["import"].(map[string]any)
	kind, _ := imp["kind"].(string)
	return kind == portability.AgentTool
}

// workTreePath is p (absolute, or relative to dir) relative to the work
// tree root, slash-separated; false when it lies outside the work tree or
// could not be a ref's path.
func workTreePath(root, dir, p string) (string, bool) {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	// The work tree root is git's real path: resolve the directories the
	// file sits in the same way (the file itself may be new or gone).
	if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(real, filepath.Base(p))
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if strings.ContainsAny(rel, ":") || textutil.PathProblem(rel, smriti.MaxRefPathLen) != "" {
		return "", false
	}
	return rel, true
}

// citeHookDraft gives a hook's draft its refs before it is kept or saved:
// the citations its items' text makes, then the files the session edited
// in each item's turns. A failure to read the turns is printed and the
// draft goes on without those refs (a hook must not fail a compaction).
func citeHookDraft(ctx context.Context, env *Env, c *client.Client, dir string, p *pendingDraft) {
	items, err := withEditRefs(ctx, c, dir, p.SessionID, citeDraft(ctx, dir, p.Items))
	if err != nil {
		fmt.Fprintf(env.Stdout, "Smriti: the files this session edited are not cited: %s\n", smriti.ErrorMessage(err))
	}
	p.Items = items
}
