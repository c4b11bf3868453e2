package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.10", "2.9", 1},
		{"2.9", "2.10", -1},
		{"3.0", "3", 0},
		{"3.0.1", "3.0", 1},
		{"10.0", "9.9", 1},
		{"1.0-beta", "1.0-alpha", 1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestRenderPicksOneNotationPerTarget(t *testing.T) {
	mcp, err := Render("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := Render("codex")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"smriti_state(", "smriti_claim(", "smriti_merge(", "smriti_verify(", "Claude Code"} {
		if !strings.Contains(mcp, want) {
			t.Errorf("claude-code pack lacks %q", want)
		}
	}
	for _, want := range []string{"smriti state <space> --compact", "smriti claim create", "smriti merge", "smriti verify", "Codex"} {
		if !strings.Contains(cli, want) {
			t.Errorf("codex pack lacks %q", want)
		}
	}
	if strings.Contains(cli, "smriti_state(") || strings.Contains(mcp, "smriti state <space>") {
		t.Error("a pack mixes notations")
	}
	if strings.Contains(mcp+cli, "{{") {
		t.Error("a placeholder survived rendering")
	}
}

func TestRenderRejectsUnmatchedBlock(t *testing.T) {
	_, err := render("a {{mcp:x}} b", Target{PrimaryMode: "mcp"})
	if err == nil || !strings.Contains(err.Error(), "unmatched") {
		t.Fatalf("err = %v, want unmatched", err)
	}
}

func TestInstallNeverDowngradesWithoutForce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "AGENTS.md")
	newer := "smriti_skill_pack_version: 10.0\n"
	if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Install(dir, "codex", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != ActionSkipped || *res.PreviousVersion != "10.0" {
		t.Fatalf("got %+v, want skipped from 10.0", res)
	}
	if b, _ := os.ReadFile(path); string(b) != newer {
		t.Fatal("file changed")
	}
	res, err = Install(dir, "codex", "", true, false)
	if err != nil || res.Action != ActionOverwritten {
		t.Fatalf("forced install: %+v, %v", res, err)
	}
	if !HasVersion(path) {
		t.Fatal("installed file has no version")
	}
}

func TestInstallReplacesUnversionedFileAsCreated(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# my notes\n"), 0o644)
	res, err := Install(dir, "codex", "", false, false)
	if err != nil || res.Action != ActionCreated || res.PreviousVersion != nil {
		t.Fatalf("got %+v, %v; want created with no previous version", res, err)
	}
}
