package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/coderef"
	"smriti/coord"
	"smriti/render"
)

// RefChecker checks items' code refs against the git work tree of the
// first of dirs that is one (refcheck.CheckIn), returning its root; root ""
// when none is (nothing was checked). It runs where the work tree is: the
// stdio server, on the agent's machine.
type RefChecker func(ctx context.Context, dirs []string, items []smriti.Item) (root string, checks []coderef.ItemCheck, err error)

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
			if t.checkRefs == nil {
				return "", smriti.Errorf(smriti.EINVALID, "this MCP server has no work tree to check against: run `smriti mcp` (stdio) or `smriti check` in the project")
			}
			cps, err := t.ops.Checkpoints(ctx, sp.ID, smriti.MainBranch)
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
			root, checks, err := t.checkRefs(ctx, t.refDirs(sp, cps[0]), items)
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
	if t.checkRefs == nil || c == nil {
		return nil, nil
	}
	items := c.Items
	if len(items) == 0 {
		var err error
		if items, err = t.ops.CheckpointItems(ctx, c.ID); err != nil {
			return nil, err
		}
	}
	_, checks, err := t.checkRefs(ctx, t.refDirs(sp, c), items)
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
