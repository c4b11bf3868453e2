package refcheck

import (
	"context"

	"smriti"
	"smriti/coderef"
	"smriti/gitcli"
	"smriti/internal/textutil"
)

type file struct {
	src    []byte
	exists bool
}

// Check classifies every ref of the live items, in item order. Each file
// is read once; git is asked only about the refs that are not fresh, two
// calls per commit they were written against (commits since and the diff
// stat to HEAD, for all their files at once).
func (c *Checker) Check(ctx context.Context, items []smriti.Item) ([]coderef.Finding, error) {
	var out []coderef.Finding
	files := map[string]file{}
	stale := map[string][]int{} // commit → indexes in out of its refs that are not fresh
	for i := range items {
		it := &items[i]
		if !it.Live() {
			continue
		}
		for _, ref := range it.Refs {
			f, seen := files[ref.Path]
			if !seen {
				src, ok, err := c.read(ref.Path)
				if err != nil {
					return nil, err
				}
				f = file{src, ok}
				files[ref.Path] = f
			}
			v := coderef.Classify(&ref, f.src, f.exists)
			if v.Status != coderef.Fresh {
				stale[ref.Commit] = append(stale[ref.Commit], len(out))
			}
			out = append(out, coderef.Finding{ItemID: it.ID, Version: it.Version, Kind: it.Kind, Text: it.Text, Ref: ref, Status: v.Status, Lines: v.Lines})
		}
	}
	for commit, ix := range stale {
		paths := make([]string, 0, len(ix))
		seen := map[string]bool{}
		for _, i := range ix {
			if p := out[i].Ref.Path; !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		changes, known, err := c.git.ChangesSince(ctx, c.Root, commit, paths)
		if err != nil {
			return nil, err
		}
		for _, i := range ix {
			ch := changes[out[i].Ref.Path]
			out[i].CommitsSince, out[i].Added, out[i].Deleted = ch.Commits, ch.Added, ch.Deleted
			if !known {
				out[i].CommitsSince = -1
			}
		}
	}
	return out, nil
}

// CheckIn checks the items' refs against the work tree of the first of
// dirs that is one (see Open) and returns its root and the checks, worst
// news first; root "" when none of dirs is in a work tree.
func CheckIn(ctx context.Context, g *gitcli.Git, dirs []string, items []smriti.Item) (string, []coderef.ItemCheck, error) {
	for _, d := range dirs {
		c, err := Open(ctx, g, d)
		if err != nil {
			continue
		}
		defer c.Close()
		fs, err := c.Check(ctx, items)
		if err != nil {
			return c.Root, nil, err
		}
		return c.Root, coderef.ByItem(fs), nil
	}
	return "", nil, nil
}

// WorkTrees reads the first of the given directories that is in a git work
// tree, for a server that is not told which one is the project (the MCP
// tools of `smriti mcp`).
type WorkTrees struct{ Git *gitcli.Git }

// Check is CheckIn.
func (w WorkTrees) Check(ctx context.Context, dirs []string, items []smriti.Item) (string, []coderef.ItemCheck, error) {
	return CheckIn(ctx, w.Git, dirs, items)
}

// Cite makes the refs of a write: spec ("path[:from-to]", relative to the
// work tree's root) when given, else the citations text makes. EINVALID
// when no directory is a work tree and spec is given.
func (w WorkTrees) Cite(ctx context.Context, dirs []string, spec, text string) ([]smriti.ItemRef, error) {
	for _, d := range dirs {
		c, err := Open(ctx, w.Git, d)
		if err != nil {
			continue
		}
		defer c.Close()
		if spec == "" {
			return c.RefsIn(ctx, text), nil
		}
		ref, err := c.Ref(c.Root, spec)
		if err != nil {
			return nil, err
		}
		return []smriti.ItemRef{ref}, nil
	}
	if spec == "" {
		return nil, nil
	}
	return nil, smriti.Errorf(smriti.EINVALID, "ref %q needs a git work tree: run the MCP server in the project or give project_root", textutil.Truncate(spec, 80))
}
