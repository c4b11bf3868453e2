package gitcli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/gitcli"
)

func TestMissingBinaryIsAClearUpstreamError(t *testing.T) {
	g := &gitcli.Git{Binary: filepath.Join(t.TempDir(), "no-git-here")}
	_, err := g.HeadSHA(context.Background(), t.TempDir())
	if smriti.ErrorCode(err) != smriti.EUPSTREAM || !strings.Contains(err.Error(), "git executable not found") {
		t.Fatalf("err = %v", err)
	}
}

func TestAHangingGitIsCutOff(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slow-git")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &gitcli.Git{Binary: bin, Timeout: 200 * time.Millisecond, ProbeTimeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() { _, err := g.Probe(context.Background(), t.TempDir()); done <- err }()
	select {
	case err := <-done:
		if smriti.ErrorCode(err) != smriti.EUPSTREAM || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a hanging git call was not cut off")
	}
}

func TestResolveDirRefusesWhatIsNotADirectory(t *testing.T) {
	g := gitcli.New()
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	for _, p := range []string{f, filepath.Join(t.TempDir(), "missing")} {
		if _, err := g.ResolveDir(context.Background(), p); smriti.ErrorCode(err) != smriti.EINVALID ||
			!strings.Contains(err.Error(), "project_root does not exist on disk") {
			t.Fatalf("%s: err = %v", p, err)
		}
	}
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	got, err := g.ResolveDir(context.Background(), link)
	want, _ := filepath.EvalSymlinks(dir)
	if err != nil || got != want {
		t.Fatalf("ResolveDir(link) = %q, %v; want %q", got, err, want)
	}
}
