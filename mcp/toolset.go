package mcp

import (
	"sort"
	"strings"

	"smriti"
)

// Toolset is which tools a server offers: every tool's schema is paid for
// in tokens on every tools/list, so the default is the agent loop's.
type Toolset string

const (
	// ToolsetCore is the agent loop: read the state, find and claim work,
	// open a worktree, look items up, save state. The zero Toolset is core.
	ToolsetCore Toolset = "core"
	// ToolsetAll is every tool, branches, merges, worktrees and admin
	// included.
	ToolsetAll Toolset = "all"
)

// coreTools are the tools of ToolsetCore.
// They are the tools of the skill pack's loop (read state, claim, work in a
// worktree, checkpoint), with ready, why and search to find work and items, and check to see which items cite code that changed.
var coreTools = map[string]bool{
	"smriti_list_spaces": true, "smriti_state": true, "smriti_show_checkpoint": true,
	"smriti_ready": true, "smriti_claim": true, "smriti_claim_done": true, "smriti_list_claims": true,
	"smriti_worktree_open": true, "smriti_worktree_close": true,
	"smriti_why": true, "smriti_search": true, "smriti_create_checkpoint": true, "smriti_checkpoint_note": true,
	"smriti_check": true,
}

// CoreTools names the tools of ToolsetCore, sorted.
func CoreTools() []string {
	out := make([]string, 0, len(coreTools))
	for n := range coreTools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseToolset reads a toolset name ("" is core); EINVALID otherwise.
func ParseToolset(s string) (Toolset, error) {
	switch ts := Toolset(strings.TrimSpace(s)); ts {
	case "", ToolsetCore:
		return ToolsetCore, nil
	case ToolsetAll:
		return ToolsetAll, nil
	default:
		return "", smriti.Errorf(smriti.EINVALID, "unknown toolset %q: use core or all", s)
	}
}

func (ts Toolset) has(name string) bool {
	return ts == ToolsetAll || coreTools[name]
}

func (ts Toolset) String() string {
	if ts == "" {
		return string(ToolsetCore)
	}
	return string(ts)
}
