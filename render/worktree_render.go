package render

import (
	"fmt"
	"smriti"
	"smriti/coord"
	"strings"
)

// RenderWorktrees is the worktree table the CLI prints and the MCP tool
// returns: ID (8 characters), agent, branch, dirty files, ahead/behind and
// path, columns padded to their widest cell. A closed worktree, or one whose
// probe failed, shows "—" for its drift. home, when set, shows as ~.
func RenderWorktrees(wts []*coord.Worktree, probes map[smriti.ID]*coord.WorktreeProbe, includeClosed bool, home string) string {
	if len(wts) == 0 {
		if includeClosed {
			return "No worktrees.\n"
		}
		return "No active worktrees.\n"
	}
	rows := [][]string{{"ID", "AGENT", "BRANCH", "DIRTY", "AHEAD", "PATH"}}
	for _, w := range wts {
		dirty, ahead := "—", "—"
		if p := probes[w.ID]; p != nil {
			dirty = fmt.Sprint(p.DirtyFiles)
			switch {
			case p.Ahead > 0:
				ahead = fmt.Sprintf("+%d", p.Ahead)
			case p.Behind > 0:
				ahead = fmt.Sprintf("-%d", p.Behind)
			default:
				ahead = "0"
			}
		}
		path := w.Path
		if home != "" && home != "/" && (path == home || strings.HasPrefix(path, home+"/")) {
			path = "~" + path[len(home):]
		}
		rows = append(rows, []string{w.ID.String()[:8] + "…", w.Agent, w.BranchName, dirty, ahead, path})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
	return Inert(b.String())
}

// RenderWorktree lists one worktree's fields, one per line.
func RenderWorktree(w *coord.Worktree) string {
	var b strings.Builder
	base := ""
	if w.BaseCommitSHA != nil {
		base = *w.BaseCommitSHA
	}
	fmt.Fprintf(&b, "id: %s\nstatus: %s\nagent: %s\nbranch: %s\nbase_commit: %s\npath: %s\ncreated_at: %s\n",
		w.ID, w.Status, w.Agent, w.BranchName, base, w.Path, w.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	if w.ClosedAt != nil {
		fmt.Fprintf(&b, "closed_at: %s\n", w.ClosedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return Inert(b.String())
}
