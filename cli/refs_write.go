package cli

import (
	"context"

	"smriti"
	"smriti/client"
	"smriti/gitcli"
	"smriti/refcheck"
	"smriti/wire"
)

// contentItems lists a write's content as proposed items, in checkpoint
// order, without ids.
func contentItems(f *wire.ContentFields) []wire.ItemIn {
	var out []wire.ItemIn
	add := func(kind smriti.ItemKind, list []string) {
		for _, s := range list {
			out = append(out, wire.ItemIn{Kind: string(kind), Text: s})
		}
	}
	add(smriti.KindDecision, f.Decisions)
	add(smriti.KindAssumption, f.Assumptions)
	for _, t := range f.Tasks {
		out = append(out, wire.ItemIn{Kind: string(smriti.KindTask), Text: t.Text})
	}
	add(smriti.KindQuestion, f.OpenQuestions)
	add(smriti.KindEntity, f.Entities)
	return out
}

// writeRefs gives the write's items the refs its --ref flags name and the
// citations the text of the items it adds makes, when the current
// directory (or the project root) is a git work tree. The items a write
// adds are those of an extract's change list marked add, else the content
// items its base (base, else the branch head: onto) does not hold. Only the
// items that get refs are sent as proposed items unless the write has an
// item list already (an extract's), so the server still matches the rest
// by text and carries their refs.
func writeRefs(ctx context.Context, env *Env, c *client.Client, p *checkpointPayload, flags []refFlag, onto *smriti.ID) error {
	ck := openWorkTree(ctx, env, p.ProjectRoot)
	if ck == nil {
		if len(flags) > 0 {
			return failf("--ref needs a git work tree: run it inside the project (or give --project-root a git work tree)")
		}
		return nil
	}
	defer ck.Close()
	all, given := p.Items, len(p.Items) > 0
	var added []int
	if given {
		for i, it := range all {
			if it.ID == "" || it.Change != nil && it.Change.Op == smriti.OpAdd {
				added = append(added, i)
			}
		}
	} else {
		all = contentItems(&p.ContentFields)
		base := map[string]string{} // kind + normalised text → id
		if onto != nil {
			items, err := c.CheckpointItems(ctx, *onto)
			if err != nil {
				return err
			}
			for _, it := range items {
				if it.Status == smriti.ItemOpen || it.Status == smriti.ItemDone {
					base[it.Kind+"\x00"+smriti.ItemKey(it.Text)] = it.ID
				}
			}
		}
		for i := range all {
			if id, ok := base[all[i].Kind+"\x00"+smriti.ItemKey(all[i].Text)]; ok {
				all[i].ID = id
			} else {
				added = append(added, i)
			}
		}
	}
	wd, _ := env.Getwd()
	all, err := attachRefs(ctx, ck, wd, flags, all, added)
	if err != nil {
		return err
	}
	if given {
		p.Items = all
		return nil
	}
	p.Items = nil
	for _, it := range all {
		if len(it.Refs) > 0 {
			p.Items = append(p.Items, it)
		}
	}
	return nil
}

// refsOfWrite is writeRefs for `checkpoint create`: the base is the
// payload's, else what a save in the session (or onto main) builds on.
func refsOfWrite(ctx context.Context, env *Env, c *client.Client, space string, session smriti.ID, p *checkpointPayload, flags []refFlag) error {
	var onto *smriti.ID
	if len(p.Items) == 0 {
		if p.BaseCheckpointID != nil {
			id, err := smriti.ParseID("--base", *p.BaseCheckpointID)
			if err != nil {
				return err
			}
			onto = &id
		} else {
			sp, err := resolveSpace(ctx, c, space)
			if err != nil {
				return err
			}
			if onto, err = c.CommitBase(ctx, sp.ID, session); err != nil {
				return err
			}
		}
	}
	return writeRefs(ctx, env, c, p, flags, onto)
}

// citeDraft gives the items a draft adds the refs their text cites
// (`path:12`, `pkg.Name`) in the work tree at dir; items unchanged when dir
// is no work tree.
func citeDraft(ctx context.Context, dir string, items []wire.ItemIn) []wire.ItemIn {
	if dir == "" || len(items) == 0 {
		return items
	}
	ck, err := refcheck.Open(ctx, gitcli.New(), dir)
	if err != nil {
		return items
	}
	defer ck.Close()
	out := append([]wire.ItemIn(nil), items...)
	for i := range out {
		if it := &out[i]; len(it.Refs) == 0 && (it.ID == "" || it.Change != nil && it.Change.Op == smriti.OpAdd) {
			it.Refs = ck.RefsIn(ctx, it.Text)
		}
	}
	return out
}
