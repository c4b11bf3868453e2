package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/coderef"
	"smriti/coord"
	"smriti/internal/textutil"
	"smriti/render"
)

// WorkTree reads the git work tree of the first of dirs that is one
// (refcheck.WorkTrees). It runs where the work tree is: the stdio server,
// on the agent's machine.
type WorkTree interface {
	// Check checks the items' code refs, returning the work tree's root;
	// root "" when no directory is in one (nothing was checked).
	Check(ctx context.Context, dirs []string, items []smriti.Item) (root string, checks []coderef.ItemCheck, err error)
	// Cite makes a write's refs: the one spec names (path[:from-to],
	// relative to the work tree's root) when given, else the citations
	// text makes (`path:12`, `pkg.Name`) that the work tree holds.
	Cite(ctx context.Context, dirs []string, spec, text string) ([]smriti.ItemRef, error)
}

type checkIn struct {
	Space string `json:"space" jsonschema:"space name or UUID"`
}

// registerRefs adds smriti_check.
func (t *tools) registerRefs(s *sdk.Server) {
	add(t, s, "smriti_check", "Check the code main's head items cite against this work tree: fresh, moved (new lines), changed (commits since, diff stat) or gone. Changes nothing.", readOnly,
		func(ctx context.Context, in checkIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			if t.workTree == nil {
				return "", smriti.Errorf(smriti.EINVALID, "this MCP server has no work tree to check against: run `smriti mcp` (stdio) or `smriti check` in the project")
			}
			cps, err := t.ops.AllCheckpoints(ctx, sp.ID, smriti.MainBranch)
			if err != nil {
				return "", err
			}
			if len(cps) == 0 {
				return "", smriti.Errorf(smriti.ENOTFOUND, "space %s has no checkpoint on main yet", sp.Name)
			}
			items, err := t.ops.CheckpointItems(ctx, cps[0].ID)
			if err != nil {
				return "", err
			}
			root, checks, err := t.workTree.Check(ctx, t.refDirs(sp, cps[0]), items)
			if err != nil {
				return "", err
			}
			if root == "" {
				return "", smriti.Errorf(smriti.EINVALID, "not in a git work tree: neither this server's directory nor the space's project root is one")
			}
			return render.RenderCheck(root, checks), nil
		})
}

// refDirs are the directories whose work tree a check reads: the server's
// own (the agent's project, for stdio), then the space's and the
// checkpoint's project roots.
func (t *tools) refDirs(sp *smriti.Space, c *smriti.Checkpoint) []string {
	dirs := []string{"."}
	for _, p := range []*string{sp.ProjectRoot, c.ProjectRoot} {
		if p != nil && *p != "" {
			dirs = append(dirs, *p)
		}
	}
	return dirs
}

// checksOf checks the checkpoint's items (nil when there is no work tree
// or the check failed: the state is then handed over unchecked, with the
// failure said in front of it by checkedText).
func (t *tools) checksOf(ctx context.Context, sp *smriti.Space, c *smriti.Checkpoint) ([]coderef.ItemCheck, error) {
	if t.workTree == nil || c == nil {
		return nil, nil
	}
	items := c.Items
	if len(items) == 0 {
		var err error
		if items, err = t.ops.CheckpointItems(ctx, c.ID); err != nil {
			return nil, err
		}
	}
	_, checks, err := t.workTree.Check(ctx, t.refDirs(sp, c), items)
	return checks, err
}

// checkedBrief is the brief of b with the head's items whose code refs
// are not fresh listed first and marked where they are listed.
func (t *tools) checkedBrief(ctx context.Context, sp *smriti.Space, b *coord.StateBrief, o render.BriefOptions) string {
	checks, err := t.checksOf(ctx, sp, b.Head)
	b.Head = render.MarkStale(b.Head, checks)
	if s := render.RefCheckSection(checks); s != "" && o.Budget > 0 && o.Tokens != nil {
		o.Budget -= o.Tokens(s + "\n")
	}
	return checkFailure(err) + render.WithRefChecks(render.RenderBrief(b, o), checks)
}

// checkedRestore is the continuation brief of c, checked the same way.
func (t *tools) checkedRestore(ctx context.Context, sp *smriti.Space, c *smriti.Checkpoint, full bool) string {
	checks, err := t.checksOf(ctx, sp, c)
	return checkFailure(err) + render.WithRefChecks(formatRestore(sp, render.MarkStale(c, checks), full), checks)
}

func checkFailure(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("_The items' code refs could not be checked: %s_\n\n", render.Inert(smriti.ErrorMessage(err)))
}

// citeWrite gives the items a write adds the refs specs name (each
// "path[:from-to]" for the one item the write adds, or
// "ITEM=path[:from-to]", ITEM an item id or words of its text) and the
// citations their text makes. A write with no item list (an object saved
// as is) sends only the items that get refs; the server matches the rest
// by text and carries their refs.
func (t *tools) citeWrite(ctx context.Context, req *smriti.CheckpointCommit, specs []string, dirs []string) error {
	if t.workTree == nil {
		if len(specs) > 0 {
			return smriti.Errorf(smriti.EINVALID, "refs need a git work tree: this MCP server has none (use `smriti mcp` in the project)")
		}
		return nil
	}
	given := len(req.Items) > 0
	items, added, err := t.writeItems(ctx, req)
	if err != nil {
		return err
	}
	for _, spec := range specs {
		target, path, named := strings.Cut(spec, "=")
		if !named {
			target, path = "", spec
		}
		i, err := refTarget(items, added, strings.TrimSpace(target), spec)
		if err != nil {
			return err
		}
		refs, err := t.workTree.Cite(ctx, dirs, path, "")
		if err != nil {
			return err
		}
		items[i].Refs = append(items[i].Refs, refs...)
	}
	for _, i := range added {
		if len(items[i].Refs) == 0 {
			if items[i].Refs, err = t.workTree.Cite(ctx, dirs, "", items[i].Text); err != nil {
				return err
			}
		}
	}
	if given {
		req.Items = items
		return nil
	}
	for _, it := range items {
		if len(it.Refs) > 0 {
			req.Items = append(req.Items, it)
		}
	}
	return nil
}

// writeItems is the write's items (its item list, else its content's with
// the base's ids) and the indexes of those it adds.
func (t *tools) writeItems(ctx context.Context, req *smriti.CheckpointCommit) ([]smriti.Item, []int, error) {
	var added []int
	if len(req.Items) > 0 {
		items := append([]smriti.Item(nil), req.Items...)
		for i, it := range items {
			if it.ID == "" || it.Change != nil && it.Change.Op == smriti.OpAdd {
				added = append(added, i)
			}
		}
		return items, added, nil
	}
	items := req.Content.ListItems()
	base := map[string]string{}
	onto := req.BaseCheckpointID
	if onto == nil {
		var err error
		if onto, err = t.ops.CommitBase(ctx, req.SpaceID, req.SessionID); err != nil {
			return nil, nil, err
		}
	}
	if onto != nil {
		prev, err := t.ops.CheckpointItems(ctx, *onto)
		if err != nil {
			return nil, nil, err
		}
		for _, it := range prev {
			if it.Live() {
				base[string(it.Kind)+"\x00"+smriti.ItemKey(it.Text)] = it.ID
			}
		}
	}
	for i := range items {
		if id, ok := base[string(items[i].Kind)+"\x00"+smriti.ItemKey(items[i].Text)]; ok {
			items[i].ID = id
		} else {
			added = append(added, i)
		}
	}
	return items, added, nil
}

func refTarget(items []smriti.Item, added []int, target, spec string) (int, error) {
	if target == "" {
		if len(added) != 1 {
			return 0, smriti.Errorf(smriti.EINVALID, "ref %q: this write adds %d items; name the one it is for: ITEM=path[:from-to] (ITEM an item id or words of its text)", textutil.Truncate(spec, 80), len(added))
		}
		return added[0], nil
	}
	found := -1
	for i, it := range items {
		if it.ID == target || strings.Contains(strings.ToLower(it.Text), strings.ToLower(target)) {
			if found >= 0 && items[found].ID != it.ID {
				return 0, smriti.Errorf(smriti.EINVALID, "ref %q: several items match %q; use the item id", textutil.Truncate(spec, 80), textutil.Truncate(target, 40))
			}
			found = i
		}
	}
	if found < 0 {
		return 0, smriti.Errorf(smriti.EINVALID, "ref %q: no item of this write matches %q", textutil.Truncate(spec, 80), textutil.Truncate(target, 40))
	}
	return found, nil
}

// writeDirs are the directories whose work tree a write's refs are made in:
// its project_root, the server's own, the space's project root.
func (t *tools) writeDirs(sp *smriti.Space, in createCheckpointIn) []string {
	var dirs []string
	if in.ProjectRoot != "" {
		dirs = append(dirs, in.ProjectRoot)
	}
	dirs = append(dirs, ".")
	if sp.ProjectRoot != nil && *sp.ProjectRoot != "" {
		dirs = append(dirs, *sp.ProjectRoot)
	}
	return dirs
}
