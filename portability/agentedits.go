package portability

import (
	"strings"
)

// agentEditTools are the tools whose target is the one file they write:
// Claude Code's Edit, MultiEdit, Write and NotebookEdit.
var agentEditTools = map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// patchFileHeaders open the file sections of a Codex apply_patch patch
// that leave a file in the work tree ("*** Delete File:" leaves none).
var patchFileHeaders = []string{"Add File: ", "Update File: ", "Move to: "}

// EditedPaths lists the files the tool calls of an imported turn wrote, in
// the order they were called, each once: the target of Claude Code's edit
// tools (an absolute path, as the host records it), and the files a Codex
// apply_patch call adds, updates or moves to (as the patch names them,
// usually relative to the session's working directory), whether the patch
// is the tool's input or a shell command's. Content is the text of an
// AgentTool entry as ReadAgentTranscript wrote it ("Tool call: Name
// `target`" lines; callers check the kind, since a message may quote such
// a line); a target cut short on import loses the paths past the cut.
// Nothing else (reads, searches, commands) names a file here.
func EditedPaths(content string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p = strings.TrimSpace(p); p != "" && !strings.HasSuffix(p, "…") && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, line := range strings.Split(content, "\n") {
		call, ok := strings.CutPrefix(line, "Tool call: ")
		if !ok {
			continue
		}
		name, target, _ := strings.Cut(call, " ")
		target = strings.TrimSuffix(strings.TrimPrefix(target, "`"), "`")
		if agentEditTools[name] {
			add(target)
			continue
		}
		if !strings.Contains(target, "*** Begin Patch") {
			continue
		}
		for _, part := range strings.Split(target, "*** ")[1:] {
			for _, h := range patchFileHeaders {
				if rest, ok := strings.CutPrefix(part, h); ok {
					path, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
					add(path)
				}
			}
		}
	}
	return out
}
