package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/search"
	"smriti/wire"
)

// newImportCmd imports transcript files into a space.
func newImportCmd() *cobra.Command {
	var asJSON, draft bool
	var format, space, sessionKey string
	cmd := &cobra.Command{
		Use:   "import <space>|claude-code|codex FILE...",
		Short: "Import conversations (ChatGPT or Claude conversations.json, a markdown/text transcript, or a Claude Code or Codex session file) as sessions of a space",
		Long: `Import transcripts into a space.

  smriti import <space> FILE...        ChatGPT or Claude conversations.json, or markdown/text
  smriti import claude-code FILE.jsonl a Claude Code session file (~/.claude/projects/…/ID.jsonl)
  smriti import codex FILE.jsonl       a Codex session file (~/.codex/sessions/…/rollout-….jsonl)

A coding agent's session becomes one session of the space; importing the file
again adds only the lines written since. Its space is --space, else
SMRITI_SPACE, else the space whose project root holds this directory.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if portability.ValidAgentFormat(args[0]) {
				if len(args) < 2 {
					return usageErr(cmd, "give at least one FILE")
				}
				return importAgent(cmd, args[0], space, sessionKey, args[1:], asJSON)
			}
			if format != "" {
				if !portability.ValidAgentFormat(format) {
					return usageErr(cmd, "--format must be claude-code or codex")
				}
				return importAgent(cmd, format, args[0], sessionKey, args[1:], asJSON)
			}
			if len(args) < 2 {
				return usageErr(cmd, "give the space and at least one FILE")
			}
			env := envOf(cmd)
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			var all []*wire.TranscriptImportResponse
			for _, name := range args[1:] {
				f, err := os.Open(name)
				if err != nil {
					return failf("cannot open %s: %v", name, err)
				}
				res, err := c.ImportTranscript(cmd.Context(), sp.ID, filepath.Base(name), f, draft)
				f.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				all = append(all, res)
				if !asJSON {
					fmt.Fprint(env.Stdout, formatTranscriptImport(name, res))
				}
			}
			if asJSON {
				return printJSON(env.Stdout, all)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&draft, "draft", false, "draft and commit a checkpoint after each imported conversation")
	cmd.Flags().StringVar(&format, "format", "", "claude-code or codex: read FILE as that agent's session file")
	cmd.Flags().StringVar(&space, "space", "", "with claude-code or codex: the space (name or id)")
	cmd.Flags().StringVar(&sessionKey, "session-key", "", "with claude-code or codex: the agent's session id when the file does not name it")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func formatTranscriptImport(name string, res *wire.TranscriptImportResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d imported, %d unchanged, %d failed\n", name, res.Imported, res.Unchanged, res.Failed)
	for _, c := range res.Conversations {
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("- #%d %s — %s", c.Index, title, c.Status)
		if c.SessionID != nil {
			line += fmt.Sprintf(", %d turns, session `%s`", c.Turns, *c.SessionID)
		}
		if c.CheckpointID != nil {
			line += fmt.Sprintf(", checkpoint `%s`", *c.CheckpointID)
		}
		if c.Error != nil {
			line += ": " + *c.Error
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// newExportCmd writes a space's bundle to a file.
func newExportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export <space> -o FILE",
		Short: "Export a space as a portable bundle (gzip'd JSON Lines)",
		Args:  exactArgs(1, "space"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			if out == "" {
				return usageErr(cmd, "-o FILE is required")
			}
			c := env.Client()
			sp, err := resolveSpace(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			tmp := out + ".partial"
			f, err := os.Create(tmp)
			if err != nil {
				return failf("cannot create %s: %v", out, err)
			}
			err = c.ExportSpace(cmd.Context(), sp.ID, f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(tmp)
				return err
			}
			if err := os.Rename(tmp, out); err != nil {
				return failf("cannot write %s: %v", out, err)
			}
			fmt.Fprintf(env.Stdout, "Exported space '%s' to %s\n", sp.Name, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write the bundle to")
	return cmd
}

// newImportSpaceCmd recreates a space from a bundle.
func newImportSpaceCmd() *cobra.Command {
	var asJSON, asNew bool
	cmd := &cobra.Command{
		Use:   "import-space FILE",
		Short: "Recreate a space from a bundle (same ids and hashes, or new ones with --as-new)",
		Args:  exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			f, err := os.Open(args[0])
			if err != nil {
				return failf("cannot open %s: %v", args[0], err)
			}
			defer f.Close()
			res, err := env.Client().ImportSpace(cmd.Context(), f, asNew)
			if err != nil {
				return withHint(err, smriti.ECONFLICT, "Add --as-new to import a copy with new ids.")
			}
			if asJSON {
				return printJSON(env.Stdout, res)
			}
			fmt.Fprintf(env.Stdout, "Imported space: %s  `%s`\n%d checkpoints, %d notes, %d sessions, %d turns\n",
				res.Repo.Name, res.Repo.ID, res.Counts.Checkpoints, res.Counts.Notes, res.Counts.Sessions, res.Counts.Turns)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asNew, "as-new", false, "give everything new ids and recompute the hashes (lineage kept)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

// newSearchCmd searches checkpoints, notes and turns.
func newSearchCmd() *cobra.Command {
	var (
		asJSON        bool
		space, branch string
		kinds         []string
		limit         int
	)
	cmd := &cobra.Command{
		Use:   "search <words...>",
		Short: "Search checkpoints, notes and turns",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			p := client.SearchParams{Q: strings.Join(args, " "), Kinds: kinds, Branch: branch, Limit: limit}
			if space != "" {
				sp, err := resolveSpace(cmd.Context(), c, space)
				if err != nil {
					return err
				}
				p.SpaceID = &sp.ID
			}
			res, err := c.Search(cmd.Context(), p)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, res.Results)
			}
			fmt.Fprint(env.Stdout, formatSearch(res))
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "only this space (name or id)")
	cmd.Flags().StringVar(&branch, "branch", "", "only this branch")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "checkpoint, turn or note (repeatable)")
	cmd.Flags().IntVar(&limit, "limit", 0, "at most this many results (1-100)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func formatSearch(res *wire.SearchResponse) string {
	if len(res.Results) == 0 {
		return fmt.Sprintf("Nothing matches %q.\n", res.Query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d result(s) for %q:\n\n", len(res.Results), res.Query)
	for _, h := range res.Results {
		where := ""
		switch {
		case h.CommitHash != nil:
			where = fmt.Sprintf("%s@%s", h.Branch, textutil.ShortHash(*h.CommitHash))
		case h.SessionID != nil && h.Seq != nil:
			where = fmt.Sprintf("%s, session %s #%d", h.Branch, short(h.SessionID.String()), *h.Seq)
		}
		snippet := strings.NewReplacer(search.HighlightStart, "**", search.HighlightEnd, "**").Replace(h.Snippet)
		fmt.Fprintf(&b, "- [%s] %s (%s)\n  %s\n", h.Kind, h.Title, where, snippet)
	}
	return b.String()
}
