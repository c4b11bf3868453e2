package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"smriti/skills"
)

// hookEvent is one hook Smriti installs: the host's event, its matcher
// ("" for none) and the `smriti hook` subcommand it runs; autoSave says
// whether --auto-save applies to it.
type hookEvent struct {
	event, matcher, sub string
	autoSave            bool
}

// hookFile is a host's hooks file: Claude Code's .claude/settings.json or
// Codex's .codex/hooks.json. Both hold {"hooks": {EVENT: [{"matcher": M,
// "hooks": [{"type": "command", "command": C}]}]}}.
type hookFile struct {
	path, rel, host string
	events          []hookEvent
	command         func(sub string, autoSave bool) string
}

// hooksSummary says what the installed hooks do.
func hooksSummary(events []hookEvent, autoSave bool) string {
	var drafting []string
	for _, ev := range events {
		if !ev.autoSave {
			continue
		}
		name := ev.event
		if ev.event == "Stop" {
			name += " (at most every 15 minutes)"
		}
		drafting = append(drafting, name)
	}
	list := strings.Join(drafting, ", ")
	if i := strings.LastIndex(list, ", "); i >= 0 {
		list = list[:i] + " and " + list[i+2:]
	}
	kept := map[bool]string{true: "saved", false: "kept pending"}[autoSave]
	return "SessionStart prints the brief, and after a compaction re-injects it and records a receipt; " + list +
		" import the transcript and draft a checkpoint, " + kept
}

// installHooks makes the host's hooks file run Smriti's hooks, keeping every
// other key and hook. Hooks Smriti installed before are rewritten to the
// current command; nothing is written when they are already current. A file
// that is not a JSON object, or whose hooks are not shaped as documented, is
// left alone (a *hookSkip says what to add by hand).
func installHooks(f hookFile, autoSave bool) (string, error) {
	settings := map[string]any{}
	data, err := os.ReadFile(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	default:
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &settings); err != nil || settings == nil {
				return "", &hookSkip{msg: "Left " + f.rel + " alone: it is not a JSON object",
					next: "Fix " + f.rel + ", then run smriti init again to add the hooks"}
			}
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if settings["hooks"] != nil && !ok {
		return "", &hookSkip{msg: "Left " + f.rel + " alone: its \"hooks\" is not an object",
			next: "Add a SessionStart hook running: " + f.command("session-start", false)}
	}
	if hooks == nil {
		hooks = map[string]any{}
	}
	added, updated := 0, 0
	for _, ev := range f.events {
		list, ok := hooks[ev.event].([]any)
		want := f.command(ev.sub, autoSave && ev.autoSave)
		if hooks[ev.event] != nil && !ok {
			return "", &hookSkip{msg: fmt.Sprintf("Left %s alone: its hooks.%s is not a list", f.rel, ev.event),
				next: fmt.Sprintf("Add a %s hook running: %s", ev.event, want)}
		}
		a, u, list := upsertHook(list, ev, want)
		added, updated = added+a, updated+u
		hooks[ev.event] = list
	}
	if added == 0 && updated == 0 {
		return fmt.Sprintf("%s hooks already installed (%s unchanged)", f.host, f.rel), nil
	}
	settings["hooks"] = hooks
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(settings); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return "", err
	}
	if err := skills.WriteFileAtomic(f.path, out.Bytes()); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s hooks in %s: %d added, %d updated (%s)", f.host, f.rel, added, updated, hooksSummary(f.events, autoSave)), nil
}

// upsertHook makes the event's list hold Smriti's hook with the wanted
// command under the event's matcher: an earlier Smriti command there is
// rewritten, a missing one appended.
func upsertHook(list []any, ev hookEvent, want string) (added, updated int, out []any) {
	found := false
	for _, e := range list {
		entry, _ := e.(map[string]any)
		matcher, _ := entry["matcher"].(string)
		if matcher != ev.matcher {
			continue
		}
		hs, _ := entry["hooks"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); isSmritiHook(c, ev.sub) {
				found = true
				if c != want {
					hm["command"] = want
					updated++
				}
			}
		}
	}
	if found {
		return 0, updated, list
	}
	entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": want}}}
	if ev.matcher != "" {
		entry["matcher"] = ev.matcher
	}
	return 1, updated, append(list, entry)
}

// hookInstaller installs one host's hooks for init.
type hookInstaller struct {
	target  string
	install func() (msg, next string, err error)
}

// hookInstallers are the hosts' hook installations init runs, each
// answering what it did and the step left to the user ("" for none).
func hookInstallers(dir, space string, autoSave bool) []hookInstaller {
	settle := func(msg, next string, err error) (string, string, error) {
		var skip *hookSkip
		switch {
		case errors.As(err, &skip):
			return skip.msg, skip.next, nil
		case err != nil:
			return "", "", err
		case strings.Contains(msg, " hooks already installed "):
			return msg, "", nil
		}
		return msg, next, nil
	}
	return []hookInstaller{
		{"claude-code", func() (string, string, error) {
			msg, err := installClaudeHooks(filepath.Join(dir, ".claude", "settings.json"), space, autoSave)
			return settle(msg, "Commit .claude/settings.json (its hooks run smriti from PATH, for every teammate)", err)
		}},
		{"codex", func() (string, string, error) {
			msg, err := installCodexHooks(dir, space, autoSave)
			return settle(msg, codexTrustStep, err)
		}},
	}
}
