package cli

import (
	"path/filepath"
	"smriti/receipt"
)

// Codex hook events Smriti installs in the project's .codex/hooks.json
// (Codex reads hooks.json beside each of its config layers; the project's
// layer is its .codex/ folder). Codex's SessionStart matcher is the start's
// source (startup, resume, clear, compact, fork); PreCompact's and PostCompact's
// is the trigger (manual, auto), left out to match both. SessionEnd (Codex
// flushes the rollout before it runs) imports what Stop, throttled, left.
var codexHookEvents = []hookEvent{
	{"SessionStart", "startup", "session-start", false},
	{"SessionStart", "resume", "session-start", false},
	{"SessionStart", "compact", "session-start", false},
	{"SessionStart", "clear", "session-start", false},
	{"SessionStart", "fork", "session-start", false},
	{"PreCompact", "", "pre-compact", true},
	{"PostCompact", "", "post-compact", false},
	{"SessionEnd", "", "session-end", true},
	{"Stop", "", "stop", true},
}

// codexHookCommand is what a Codex hook runs: `smriti` from PATH, so the
// file works in every clone of the project.
func codexHookCommand(sub, space string, autoSave bool) string {
	return hookCommand(sub, space, autoSave) + " --host " + receipt.HostCodex
}

// codexHooksRel is the project's Codex hooks file.
var codexHooksRel = filepath.Join(".codex", "hooks.json")

// installCodexHooks makes the project's .codex/hooks.json run Smriti's
// hooks for the space, keeping every other hook (see installHooks).
func installCodexHooks(dir, space string, autoSave bool) (string, error) {
	return installHooks(hookFile{path: filepath.Join(dir, codexHooksRel), rel: codexHooksRel, host: "Codex", events: codexHookEvents,
		command: func(sub string, autoSave bool) string { return codexHookCommand(sub, space, autoSave) }}, autoSave)
}

// codexTrustStep is the step Codex asks of the user before project hooks
// run: it loads a project's .codex/ layer only in a trusted project, and
// runs a new or changed hook only once it was reviewed.
const codexTrustStep = "In Codex, trust this project and review the Smriti hooks with /hooks (Codex runs a project's hooks only when the project is trusted and each hook was reviewed); commit .codex/hooks.json for the team"
