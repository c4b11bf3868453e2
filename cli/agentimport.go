package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"smriti/client"
	"smriti/wire"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

// importAgent imports coding-agent transcripts: `smriti import claude-code
// FILE...` or `smriti import codex FILE...`, into --space (else the space
// whose project root holds the working directory).
func importAgent(cmd *cobra.Command, format, space, sessionKey string, files []string, asJSON bool) error {
	env := envOf(cmd)
	c := env.Client()
	sp, err := spaceForCommand(cmd.Context(), env, c, space)
	if err != nil {
		return err
	}
	var all []*wire.TranscriptImportResponse
	for _, name := range files {
		res, err := importAgentFile(cmd.Context(), c, sp.ID, format, name, sessionKey)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, res)
		if !asJSON {
			fmt.Fprint(env.Stdout, formatAgentImport(name, res))
		}
	}
	if asJSON {
		return printJSON(env.Stdout, all)
	}
	return nil
}

func importAgentFile(ctx context.Context, c *client.Client, spaceID smriti.ID, format, name, sessionKey string) (*wire.TranscriptImportResponse, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, failf("cannot open %s: %v", name, err)
	}
	defer f.Close()
	return c.ImportAgentTranscript(ctx, spaceID, format, filepath.Base(name), sessionKey, f)
}

func formatAgentImport(name string, res *wire.TranscriptImportResponse) string {
	a := res.Agent
	if a == nil {
		return formatTranscriptImport(name, res)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d turns added, %d already imported, %d lines skipped", name, a.Added, a.Unchanged, a.Skipped)
	if a.Truncated {
		b.WriteString(", last line incomplete (left for next time)")
	}
	verb := "session"
	if a.Created {
		verb = "new session"
	}
	fmt.Fprintf(&b, "\n%s %s (%s %s)\n", verb, shortID(a.SessionID), a.Source, a.SessionKey)
	return b.String()
}

// shortID is the 8-character prefix of an id, which every command taking
// that kind of reference accepts.
func shortID(id smriti.ID) string { return id.String()[:8] }

// spaceForCommand picks the space a command works on: the one named (by
// name or id), else SMRITI_SPACE, else the space whose project root is the
// working directory or the nearest directory above it.
func spaceForCommand(ctx context.Context, env *Env, c *client.Client, arg string) (*wire.Repo, error) {
	if arg = firstNonEmpty(arg, os.Getenv("SMRITI_SPACE")); arg != "" {
		return resolveSpace(ctx, c, arg)
	}
	wd, err := env.Getwd()
	if err != nil {
		return nil, err
	}
	return spaceForDir(ctx, c, wd)
}

// spaceForDir finds the space whose project root holds dir (the deepest
// one when roots nest).
func spaceForDir(ctx context.Context, c *client.Client, dir string) (*wire.Repo, error) {
	all, err := c.Spaces(ctx)
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	best := -1
	for i, r := range all {
		if r.ProjectRoot == nil || *r.ProjectRoot == "" {
			continue
		}
		root := filepath.Clean(*r.ProjectRoot)
		if dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) {
			if best < 0 || len(root) > len(filepath.Clean(*all[best].ProjectRoot)) {
				best = i
			}
		}
	}
	if best < 0 {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "no space has %s as its project root: pass --space, set SMRITI_SPACE, or run `smriti init <name>` here", dir)
	}
	return &all[best], nil
}
