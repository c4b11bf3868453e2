package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/wire"
)

// checkpointCreate is `smriti checkpoint create`'s flags.
type checkpointCreate struct {
	asJSON, extract, dryRun, noRoot, yes bool
	propose                              bool
	fromJSON, session, author, root      string
	base                                 string
	resolve, refSpecs                    []string
}

func newCheckpointCreateCmd() *cobra.Command {
	var o checkpointCreate
	cmd := &cobra.Command{
		Use:   "create <space>",
		Short: "Create a checkpoint from JSON on stdin (or --from-json), or extract one from markdown (--extract)",
		Example: `  echo '{"message":"Chose SQLite","decisions":["SQLite by default"]}' | smriti checkpoint create demo
  cat handoff.md | smriti checkpoint create demo --extract
  smriti checkpoint create demo --from-json cp.json --session <fork-session-id>`,
		Args: exactArgs(1, "space"),
		RunE: o.run,
	}
	f := cmd.Flags()
	f.StringVar(&o.fromJSON, "from-json", "", "read the checkpoint JSON from this file ('-' for stdin)")
	f.BoolVar(&o.extract, "extract", false, "extract the checkpoint from markdown on stdin (LLM-backed) as changes to the branch head; shows the changes first")
	f.BoolVar(&o.propose, "propose", false, "save it as a proposal waiting on the server (reviewed with `smriti proposals`) instead of a checkpoint")
	f.BoolVarP(&o.yes, "yes", "y", false, "save an extracted checkpoint without asking (needed when not on a terminal, unless --json)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the payload that would be sent and stop")
	f.StringVar(&o.session, "session", "", "write into this session (a fork's session puts the checkpoint on its branch)")
	f.StringVar(&o.author, "author-agent", "", "who wrote it (default: the payload's author_agent, else "+DefaultAuthorAgent+")")
	f.StringVar(&o.root, "project-root", "", "project directory (default: the payload's, else the current directory)")
	f.BoolVar(&o.noRoot, "no-project-root", false, "record no project root")
	f.StringVar(&o.base, "base", "", "the checkpoint your content was written against, by id or 7+ characters of its hash (default: the payload's base_checkpoint_id; with --extract, the branch head). "+
		"If the branch head has moved past it, your changes are applied onto the head, or nothing is saved and the conflicts are printed (exit 3). "+
		"Without a base the content is saved as the whole new state, replacing the head's")
	f.StringArrayVar(&o.resolve, "resolve", nil, "settle a conflict a save reported, then save again with the same --base: FIELD:KEY=CHOICE, KEY the item id (as printed), "+
		"CHOICE ours (keep the branch head's), theirs (keep yours) or base (keep the text both started from); repeat per conflict")
	f.StringArrayVar(&o.refSpecs, "ref", nil, "the code an item cites, checked later against the reader's work tree: path[:from-to] for the one item this write adds, "+
		"ITEM=path[:from-to] otherwise (ITEM an item id or words of its text); the path is relative to the current directory, which must be in a git work tree; repeat per ref")
	cmd.MarkFlagsMutuallyExclusive("project-root", "no-project-root")
	jsonFlag(cmd, &o.asJSON)
	return cmd
}

func (o *checkpointCreate) run(cmd *cobra.Command, args []string) error {
	env := envOf(cmd)
	ctx := cmd.Context()
	if o.extract && o.fromJSON != "" {
		return usageErr(cmd, "--extract and --from-json are mutually exclusive")
	}
	resolutions, err := parseResolutions(cmd, o.resolve)
	if err != nil {
		return err
	}
	refs, err := parseRefFlags(o.refSpecs)
	if err != nil {
		return err
	}
	var sessionID smriti.ID
	if o.session != "" {
		if sessionID, err = smriti.ParseID("--session", o.session); err != nil {
			return err
		}
	}
	c := env.Client()
	// --base takes what Smriti prints: a hash or id prefix of 7+
	// characters, or the full id; the server is sent the id.
	base := o.base
	if base != "" {
		cp, err := resolveCheckpoint(ctx, c, base)
		if err != nil {
			return err
		}
		base = cp.ID.String()
	}
	var p *checkpointPayload
	if o.extract {
		p, err = o.extracted(ctx, env, c, args[0], sessionID, base)
	} else {
		p, err = o.fromPayload(env)
	}
	if err != nil {
		return err
	}
	o.settle(env, p, base)
	if len(refs) > 0 || o.extract {
		if err := refsOfWrite(ctx, env, c, args[0], sessionID, p, refs); err != nil {
			return err
		}
	}
	if o.dryRun {
		return printJSON(env.Stdout, p)
	}
	return o.save(cmd, env, c, args[0], sessionID, p, resolutions)
}

// extracted is the payload the server extracts from the markdown on
// stdin for this save, settled by the server as the save would be: as
// changes onto the base the checkpoint will build on (the session's branch
// head, a fork's source before its first), or onto the named base (a
// retry after a conflict keeps the base the first attempt stood on).
func (o *checkpointCreate) extracted(ctx context.Context, env *Env, c *client.Client, space string, sessionID smriti.ID, base string) (*checkpointPayload, error) {
	if env.StdinTTY {
		return nil, failf("--extract reads markdown from stdin; pipe it in:\n  cat handoff.md | smriti checkpoint create %s --extract", space)
	}
	data, err := readAllLimited(env.Stdin, "stdin")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, failf("empty content on stdin for --extract")
	}
	sp, err := resolveSpace(ctx, c, space)
	if err != nil {
		return nil, err
	}
	var onto *smriti.ID
	if base != "" {
		id, err := smriti.ParseID("--base", base)
		if err != nil {
			return nil, err
		}
		onto = &id
	}
	stop := spinner(env, "extracting checkpoint…")
	ex, err := c.ExtractForSave(ctx, sp.ID, sessionID, string(data), false, onto)
	stop()
	if err != nil {
		return nil, withHint(err, smriti.ENOTFOUND, "Check the --session id (`smriti fork` prints it).")
	}
	if !o.dryRun && !o.asJSON && !o.propose {
		list := changeList(ex.BaseCheckpointID, ex.Changes)
		if o.yes {
			fmt.Fprintln(env.Stderr, list)
		}
		if err := confirm(env, o.yes, list); err != nil {
			return nil, err
		}
	}
	msg := ex.Title
	p := &checkpointPayload{ContentFields: wire.ContentFields{Message: &msg, Summary: ex.Summary,
		Objective: ex.Objective, Decisions: ex.Decisions, Assumptions: ex.Assumptions, Tasks: ex.Tasks,
		OpenQuestions: ex.OpenQuestions, Entities: ex.Entities, Artifacts: ex.Artifacts},
		Items: wire.ItemsInOf(wire.DomainItems(ex.Items)), Model: ex.Model}
	if ex.BaseCheckpointID != nil {
		b := ex.BaseCheckpointID.String()
		p.BaseCheckpointID = &b
	}
	return p, nil
}

// fromPayload reads the checkpoint JSON from --from-json or stdin.
func (o *checkpointCreate) fromPayload(env *Env) (*checkpointPayload, error) {
	var data []byte
	var err error
	switch {
	case o.fromJSON != "" && o.fromJSON != "-":
		f, ferr := os.Open(o.fromJSON)
		if ferr != nil {
			return nil, failf("file not found — %v", ferr)
		}
		data, err = readAllLimited(f, o.fromJSON)
		f.Close()
	case o.fromJSON == "-" || !env.StdinTTY:
		data, err = readAllLimited(env.Stdin, "stdin")
	}
	if err != nil {
		return nil, err
	}
	return parseCheckpointJSON(data)
}

// settle applies the flags to the payload: the project root, the author
// and the base.
func (o *checkpointCreate) settle(env *Env, p *checkpointPayload, base string) {
	switch {
	case o.noRoot:
		p.ProjectRoot = nil
	case o.root != "":
		root := o.root
		p.ProjectRoot = &root
	case p.ProjectRoot == nil:
		if wd, err := env.Getwd(); err == nil {
			p.ProjectRoot = &wd
		}
	}
	switch {
	case o.author != "":
		author := o.author
		p.AuthorAgent = &author
	case p.AuthorAgent == nil || *p.AuthorAgent == "":
		a := DefaultAuthorAgent
		p.AuthorAgent = &a
	}
	if base != "" {
		p.BaseCheckpointID = &base
	}
}

// save commits the payload into the session, or without one onto main's
// head (no session is made for it), and reports the checkpoint.
func (o *checkpointCreate) save(cmd *cobra.Command, env *Env, c *client.Client, space string, sessionID smriti.ID, p *checkpointPayload, resolutions []smriti.MergeResolution) error {
	ctx := cmd.Context()
	sp, err := resolveSpace(ctx, c, space)
	if err != nil {
		return err
	}
	git := gitOf(ctx, env, p.ProjectRoot)
	if o.propose {
		return proposeCheckpoint(ctx, env, c, sp, o.session, p, git, o.asJSON)
	}
	items := wire.ItemFields{Items: p.Items, Model: p.Model, BaseCheckpointID: p.BaseCheckpointID, Resolutions: resolutions}
	var out *wire.Commit
	if o.session != "" {
		spID, sid := sp.ID.String(), sessionID.String()
		out, err = c.Commit(ctx, wire.CommitRequest{RepoID: &spID, SessionID: &sid, ContentFields: p.ContentFields,
			AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot, ItemFields: items, Git: git})
	} else {
		out, err = c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: p.ContentFields,
			AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot, ItemFields: items, Git: git})
	}
	if err != nil {
		if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok && o.asJSON {
			if perr := printJSON(env.Stdout, cc); perr != nil {
				return perr
			}
		}
		retry := createRetry(cmd, space, p, o.extract)
		return withHint(asConflict(err, retry, ""), smriti.ENOTFOUND, "Check the --session id (`smriti fork` prints it) and the space.")
	}
	printRedactions(env, out.Redactions)
	if o.asJSON {
		return printJSON(env.Stdout, out)
	}
	fmt.Fprintf(env.Stdout, "Created checkpoint: `%s` %s\n", short(out.CommitHash), out.Message)
	printRebased(env, out)
	if out.BranchName != "main" {
		fmt.Fprintf(env.Stdout, "Branch: %s\n", out.BranchName)
	}
	return nil
}
