// Package skills is the Smriti skill pack: guidance that teaches a coding
// agent when to read state, when to checkpoint (and when not to), claims,
// worktrees, fork, compare, merge and verify. One template renders in MCP
// notation for Claude Code and CLI notation for Codex; it is embedded in the
// binary and versioned so installs never clobber a newer pack.
package skills

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed pack.md
var template string

// Target is an agent host the pack renders for.
type Target struct {
	Key         string `json:"key"`
	DisplayName string `json:"display_name"`
	Destination string `json:"default_destination"`
	PrimaryMode string `json:"primary_mode"`
	Description string `json:"description"`
}

var targets = map[string]Target{
	"claude-code": {Key: "claude-code", DisplayName: "Claude Code", Destination: ".claude/skills/smriti/SKILL.md", PrimaryMode: "mcp",
		Description: "Claude Code skill using the smriti MCP tools"},
	"codex": {Key: "codex", DisplayName: "Codex", Destination: "AGENTS.md", PrimaryMode: "cli",
		Description: "AGENTS.md for Codex and other agents that run shell commands"},
}

// Targets lists the targets sorted by key.
func Targets() []Target {
	out := make([]Target, 0, len(targets))
	for _, t := range targets {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Lookup returns a target by key.
func Lookup(key string) (Target, error) {
	t, ok := targets[key]
	if !ok {
		keys := make([]string, 0, len(targets))
		for _, t := range Targets() {
			keys = append(keys, t.Key)
		}
		return Target{}, fmt.Errorf("unknown skill pack target %q; known targets: %s", key, strings.Join(keys, ", "))
	}
	return t, nil
}

// The pack's patterns are compiled when a pack is rendered or read, not at
// every start of the binary.
var (
	versionRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^smriti_skill_pack_version:\s*(\S+)\s*$`)
	})
	pairRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\{\{mcp:(.*?)\}\}\{\{cli:(.*?)\}\}`)
	})
)

// Version is the version of the embedded pack.
func Version() string { return versionOf(template) }

func versionOf(s string) string {
	m := versionRe().FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}

// Render renders the pack for a target.
func Render(key string) (string, error) {
	t, err := Lookup(key)
	if err != nil {
		return "", err
	}
	return render(template, t)
}

func render(tpl string, t Target) (string, error) {
	re := pairRe()
	out := re.ReplaceAllStringFunc(tpl, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if t.PrimaryMode == "mcp" {
			return sub[1]
		}
		return sub[2]
	})
	if strings.Contains(out, "{{mcp:") || strings.Contains(out, "{{cli:") {
		return "", errors.New("skill pack template has an unmatched {{mcp:…}}/{{cli:…}} block")
	}
	out = strings.ReplaceAll(out, "{{display_name}}", t.DisplayName)
	out = strings.ReplaceAll(out, "{{primary_mode}}", map[string]string{"mcp": "MCP tool", "cli": "command-line"}[t.PrimaryMode])
	return out, nil
}

// CompareVersions compares dotted numeric versions ("2.10" > "2.9");
// missing parts count as 0 and a non-numeric part compares as text.
func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		x, y := "0", "0"
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		nx, ex := strconv.Atoi(x)
		ny, ey := strconv.Atoi(y)
		switch {
		case ex == nil && ey == nil:
			if nx != ny {
				if nx < ny {
					return -1
				}
				return 1
			}
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return 0
}

// Actions an install can take.
const (
	ActionCreated     = "created"
	ActionOverwritten = "overwritten"
	ActionSkipped     = "skipped"
	ActionDryRun      = "dry_run"
)

// Result is what an install did.
type Result struct {
	Target          string  `json:"target"`
	Destination     string  `json:"destination"`
	Action          string  `json:"action"`
	Version         string  `json:"version"`
	PreviousVersion *string `json:"previous_version"`
	Content         string  `json:"-"`
}

// Install writes the pack for target to dest (the target's default,
// relative to dir, when dest is ""). An existing pack of the same or a newer
// version is left alone unless force; a file without a version is replaced.
// dryRun reports what would happen and writes nothing.
func Install(dir, key, dest string, force, dryRun bool) (*Result, error) {
	t, err := Lookup(key)
	if err != nil {
		return nil, err
	}
	content, err := render(template, t)
	if err != nil {
		return nil, err
	}
	if dest == "" {
		dest = t.Destination
	}
	path := dest
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, dest)
	}
	res := &Result{Target: key, Destination: dest, Version: Version(), Content: content}
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		if v := versionOf(string(old)); v != "" {
			res.PreviousVersion = &v
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if res.PreviousVersion != nil && !force && CompareVersions(*res.PreviousVersion, res.Version) >= 0 {
		res.Action = ActionSkipped
		return res, nil
	}
	if dryRun {
		res.Action = ActionDryRun
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(path, []byte(content)); err != nil {
		return nil, err
	}
	res.Action = ActionCreated
	if res.PreviousVersion != nil {
		res.Action = ActionOverwritten
	}
	return res, nil
}

// HasVersion reports whether the file at path carries a skill pack version.
func HasVersion(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && versionOf(string(b)) != ""
}

// WriteFileAtomic writes through a temporary file and a rename, so a
// failure never leaves a half-written file. Installs use it, and so do
// callers writing other onboarding files (settings).
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
