package cli

import (
	"context"
	"fmt"
	"strings"

	"smriti"
	"smriti/client"
	"smriti/coderef"
	"smriti/gitcli"
	"smriti/internal/estimate"
	"smriti/refcheck"
	"smriti/render"
	"smriti/wire"
)

// Items cite code (see smriti.ItemRef). The CLI is on the side of the work
// tree, so it makes the refs a write carries and checks the stored ones
// before it hands state to an agent.

// openWorkTree opens the git work tree of the current directory, else of
// projectRoot; nil when neither is one (nothing to check against).
func openWorkTree(ctx context.Context, env *Env, projectRoot *string) *refcheck.Checker {
	var dirs []string
	if wd, err := env.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if projectRoot != nil && *projectRoot != "" {
		dirs = append(dirs, *projectRoot)
	}
	for _, d := range dirs {
		if ck, err := refcheck.Open(ctx, gitcli.New(), d); err == nil {
			return ck
		}
	}
	return nil
}

// checkItems checks the refs of the checkpoint's items against the work
// tree (nil when there is none or no item cites code). A failure is said
// on stderr and the state is handed over unchecked.
func checkItems(ctx context.Context, env *Env, c *client.Client, cp smriti.ID, projectRoot *string) []coderef.ItemCheck {
	ck := openWorkTree(ctx, env, projectRoot)
	if ck == nil {
		return nil
	}
	defer ck.Close()
	checks, err := checkCheckpoint(ctx, c, ck, cp)
	if err != nil {
		fmt.Fprintf(env.Stderr, "smriti: the items' code refs could not be checked: %s\n", smriti.ErrorMessage(err))
		return nil
	}
	return checks
}

func checkCheckpoint(ctx context.Context, c *client.Client, ck *refcheck.Checker, cp smriti.ID) ([]coderef.ItemCheck, error) {
	items, err := c.CodeCitingItems(ctx, cp)
	if err != nil {
		return nil, err
	}
	fs, err := ck.Check(ctx, wire.DomainItems(items))
	if err != nil {
		return nil, err
	}
	return coderef.ByItem(fs), nil
}

// headChecks checks the refs of the items on the space's head against the
// work tree, as checkItems does. It asks the server for the items that
// cite code first: most heads have none, and then no git runs.
func headChecks(ctx context.Context, env *Env, c *client.Client, space smriti.ID, projectRoot *string) []coderef.ItemCheck {
	items, err := c.HeadCitingCode(ctx, space)
	if err != nil || len(items) == 0 {
		// No checkpoint yet (or a server that does not say), or no item
		// cites code: nothing to check.
		return nil
	}
	ck := openWorkTree(ctx, env, projectRoot)
	if ck == nil {
		return nil
	}
	defer ck.Close()
	fs, err := ck.Check(ctx, wire.DomainItems(items))
	if err != nil {
		fmt.Fprintf(env.Stderr, "smriti: the items' code refs could not be checked: %s\n", smriti.ErrorMessage(err))
		return nil
	}
	return coderef.ByItem(fs)
}

// checkedBrief reads the brief the server renders with o while the head's
// items are checked against the work tree, both at once: the checks rarely
// find a stale item, and then one read is all it takes. When they do and
// the brief has a budget (or is the prime text), it is read again with
// room kept for what the checks add.
func checkedBrief(ctx context.Context, env *Env, c *client.Client, sp *wire.Repo, o client.BriefOptions) (string, []coderef.ItemCheck, error) {
	var checks []coderef.ItemCheck
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		checks = headChecks(ctx, env, c, sp.ID, sp.ProjectRoot)
	}()
	md, err := c.Brief(ctx, sp.ID, o)
	<-checked
	if err != nil {
		return "", nil, err
	}
	if reserve := checksReserve(checks); reserve > 0 && (o.Budget > 0 || o.Prime) {
		o.Reserve = reserve
		if md, err = c.Brief(ctx, sp.ID, o); err != nil {
			return "", nil, err
		}
	}
	return md, checks, nil
}

// checksReserve is what the checks add to a brief (the section in front,
// a marker on each stale item), in tokens estimated high: the server keeps
// that much of a budget free, so the brief with them stays within it.
func checksReserve(checks []coderef.ItemCheck) int {
	section := render.RefCheckSection(checks)
	if section == "" {
		return 0
	}
	n := estimate.Tokens(section + "\n")
	for _, s := range coderef.Stale(checks) {
		n += estimate.Tokens(" [check: " + string(s.Status) + "]")
	}
	return n
}

// withChecks is a brief the server rendered with its stale items marked
// where they are listed and the check section in front. A token line at
// its end grows by an estimate (estimate.Tokens, high) of what the
// checks added: the server counted the brief without them.
func withChecks(md string, checks []coderef.ItemCheck) string {
	if len(coderef.Stale(checks)) == 0 {
		return md
	}
	body, n, counted := render.SplitTokenLine(md)
	out := render.WithRefChecks(render.MarkStaleText(body, checks), checks)
	if !counted {
		return out
	}
	n += max(0, estimate.Tokens(out)-estimate.Tokens(body))
	out, _ = render.WithTokenLine(out, func(string) int { return n })
	return out
}

// refFlag is one --ref: ITEM (an item id or words of its text; "" for the
// one item the write adds) and the spec path[:from-to].
type refFlag struct{ item, spec string }

func parseRefFlags(flags []string) ([]refFlag, error) {
	out := make([]refFlag, 0, len(flags))
	for _, f := range flags {
		item, spec, named := strings.Cut(f, "=")
		if !named {
			item, spec = "", f
		}
		if strings.TrimSpace(spec) == "" || named && strings.TrimSpace(item) == "" {
			return nil, failf("--ref %q: give path[:from-to], or ITEM=path[:from-to]", f)
		}
		if _, _, err := coderef.ParseSpec(spec); err != nil {
			return nil, err
		}
		out = append(out, refFlag{strings.TrimSpace(item), spec})
	}
	return out, nil
}

// attachRefs sets the refs the --ref flags and the items' own text cite
// on the write's items: the content's items (new, ids unknown) are named
// by words of their text, the base's by id. added are the items the write
// adds (for a --ref without ITEM: it must be exactly one); items is the
// write's item list, extended as needed. Citations in an added item's
// text (`path:12`, `pkg.Name`) that the work tree holds are attached too.
func attachRefs(ctx context.Context, ck *refcheck.Checker, dir string, flags []refFlag, all []wire.ItemIn, added []int) ([]wire.ItemIn, error) {
	for _, f := range flags {
		ref, err := ck.Ref(dir, f.spec)
		if err != nil {
			return nil, err
		}
		i, err := refTarget(all, added, f)
		if err != nil {
			return nil, err
		}
		all[i].Refs = append(all[i].Refs, ref)
	}
	for _, i := range added {
		if len(all[i].Refs) == 0 {
			all[i].Refs = ck.RefsIn(ctx, all[i].Text)
		}
	}
	return all, nil
}

func refTarget(all []wire.ItemIn, added []int, f refFlag) (int, error) {
	if f.item == "" {
		if len(added) != 1 {
			return 0, failf("--ref %s: this write adds %d items; name the one it is for: --ref ITEM=%s (ITEM an item id or words of its text)", f.spec, len(added), f.spec)
		}
		return added[0], nil
	}
	found := -1
	for i, it := range all {
		if it.ID == f.item || strings.Contains(strings.ToLower(it.Text), strings.ToLower(f.item)) {
			if found >= 0 && all[found].ID != it.ID {
				return 0, failf("--ref %s=%s: several items match %q; use the item id", f.item, f.spec, f.item)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, failf("--ref %s=%s: no item of this write matches %q", f.item, f.spec, f.item)
	}
	return found, nil
}

// dirChecks are the head's items whose code refs are not fresh in the
// work tree of the agent's directory dir (checked once per hook).
func dirChecks(ctx context.Context, env *Env, c *client.Client, sp *wire.Repo, dir string) []coderef.ItemCheck {
	envAt := *env
	if dir != "" {
		envAt.Getwd = func() (string, error) { return dir, nil }
	}
	return headChecks(ctx, &envAt, c, sp.ID, sp.ProjectRoot)
}
