package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"smriti/wire"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

// parseResolution reads FIELD=CHOICE or FIELD:KEY=CHOICE (the choice is
// ours, theirs or base; custom values come from --resolutions).
func parseResolution(s string) (smriti.MergeResolution, error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 {
		return smriti.MergeResolution{}, fmt.Errorf("--resolve %q: want FIELD=CHOICE or FIELD:KEY=CHOICE", s)
	}
	target, choice := s[:i], s[i+1:]
	switch choice {
	case smriti.ChooseOurs, smriti.ChooseTheirs, smriti.ChooseBase:
	default:
		return smriti.MergeResolution{}, fmt.Errorf("--resolve %q: choice must be ours, theirs or base", s)
	}
	field, key, _ := strings.Cut(target, ":")
	return smriti.MergeResolution{Field: field, Key: key, Choice: choice}, nil
}

func newMergeCmd() *cobra.Command {
	var (
		asJSON, commit         bool
		into, message, resFile string
		resolve                []string
	)
	cmd := &cobra.Command{
		Use:   "merge <source-checkpoint>",
		Short: "Merge a checkpoint into main's head (or --into): preview by default, --commit to write",
		Long: `Merge a checkpoint into a branch head. Without --commit it previews: the
merged content and every conflict still to resolve, nothing written. Resolve
conflicts with --resolve FIELD=ours|theirs|base (FIELD:KEY=… for a task or
artifact) or --resolutions FILE, a JSON array of
{"field","key","choice","value"} ("custom" takes value); then --commit.`,
		Example: `  smriti merge 3f9a2c1
  smriti merge 3f9a2c1 --resolve summary=theirs --commit
  smriti merge 3f9a2c1 --resolutions res.json --commit -m "Merge the parser spike"`,
		Args: exactArgs(1, "source-checkpoint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			var res []smriti.MergeResolution
			for _, r := range resolve {
				mr, err := parseResolution(r)
				if err != nil {
					return usageErr(cmd, err.Error()+" (--resolutions FILE takes custom values)")
				}
				res = append(res, mr)
			}
			if resFile != "" {
				var data []byte
				var err error
				if resFile == "-" {
					data, err = readAllLimited(env.Stdin, "stdin")
				} else {
					f, ferr := os.Open(resFile)
					if ferr != nil {
						return failf("file not found — %v", ferr)
					}
					data, err = readAllLimited(f, resFile)
					f.Close()
				}
				if err != nil {
					return err
				}
				var fromFile []smriti.MergeResolution
				if err := json.Unmarshal(data, &fromFile); err != nil {
					return failf("invalid resolutions JSON (want an array of {field, key, choice, value}) — %v", err)
				}
				res = append(res, fromFile...)
			}
			src, err := resolveCheckpoint(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			sp, srcID := src.RepoID.String(), src.ID.String()
			req := wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &srcID, Resolutions: res}
			if into != "" {
				t, err := resolveCheckpoint(cmd.Context(), c, into)
				if err != nil {
					return err
				}
				tid := t.ID.String()
				req.TargetCheckpointID = &tid
			}
			if message != "" {
				req.Message = &message
			}
			if !commit {
				p, err := c.MergePreview(cmd.Context(), req)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(env.Stdout, p)
				}
				fmt.Fprint(env.Stdout, formatMergePreview(args[0], p))
				return nil
			}
			out, err := c.Merge(cmd.Context(), req)
			if err != nil {
				return mergeConflictsOf(err, args[0])
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Merged `%s` into `%s`: created `%s` on `%s` (%d conflict(s) resolved).\n",
				short(src.CommitHash), out.Checkpoint.BranchName, short(out.Checkpoint.CommitHash), out.Checkpoint.BranchName, out.ConflictsResolved)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&into, "into", "", "target checkpoint (default: main's head)")
	f.BoolVar(&commit, "commit", false, "write the merge checkpoint (default: preview only)")
	f.StringArrayVar(&resolve, "resolve", nil, "resolve a conflict: FIELD=CHOICE or FIELD:KEY=CHOICE (repeatable)")
	f.StringVar(&resFile, "resolutions", "", "JSON file of resolutions ('-' for stdin)")
	f.StringVarP(&message, "message", "m", "", "message of the merge checkpoint")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func formatConflicts(b *strings.Builder, conflicts []smriti.MergeConflict) {
	for i, c := range conflicts {
		target := c.Field
		if c.Key != "" {
			target += ":" + c.Key
		}
		fmt.Fprintf(b, "%d. `%s` (%s)\n   base:   %s\n   ours:   %s\n   theirs: %s\n   resolve with: --resolve '%s=ours|theirs|base'\n",
			i+1, target, c.Kind, orNone(c.Base), orNone(c.Ours), orNone(c.Theirs), target)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

func formatMergePreview(src string, p *wire.MergePreview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Merge preview: `%s` into `%s`\n\n", short(p.SourceCommitHash), short(p.TargetCommitHash))
	if p.BaseCheckpointID != nil && p.BaseCommitHash != nil {
		fmt.Fprintf(&b, "Common ancestor: `%s` (%s)\n\n", short(*p.BaseCommitHash), p.BaseCheckpointID)
	} else if p.BaseCheckpointID != nil {
		fmt.Fprintf(&b, "Common ancestor: `%s`\n\n", p.BaseCheckpointID)
	} else {
		b.WriteString("Common ancestor: _none_\n\n")
	}
	m := p.Merged
	fmt.Fprintf(&b, "Merged: %q · %d decision(s) · %d assumption(s) · %d task(s) · %d open question(s) · %d artifact(s)\n\n",
		m.Message, len(m.Decisions), len(m.Assumptions), len(m.Tasks), len(m.OpenQuestions), len(m.Artifacts))
	if len(p.Conflicts) == 0 {
		fmt.Fprintf(&b, "No conflicts. Commit with: smriti merge %s --commit\n", src)
		return b.String()
	}
	fmt.Fprintf(&b, "%d conflict(s) to resolve:\n\n", len(p.Conflicts))
	formatConflicts(&b, p.Conflicts)
	fmt.Fprintf(&b, "\nThen commit with: smriti merge %s --commit --resolve … (or --resolutions FILE)\n", src)
	return b.String()
}

// mergeConflictsOf lists the unresolved conflicts of a refused merge.
func mergeConflictsOf(err error, src string) error {
	data, ok := smriti.ErrorData(err).(map[string]any)
	if !ok || smriti.ErrorCode(err) != smriti.ECONFLICT {
		return err
	}
	raw, _ := json.Marshal(data["conflicts"])
	var conflicts []smriti.MergeConflict
	if json.Unmarshal(raw, &conflicts) != nil || len(conflicts) == 0 {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", smriti.ErrorMessage(err))
	formatConflicts(&b, conflicts)
	return &hinted{err: smriti.Errorf(smriti.ECONFLICT, "%s", strings.TrimRight(b.String(), "\n")),
		hint: fmt.Sprintf("Nothing was written. Preview with `smriti merge %s`, then add --resolve flags.", src)}
}
