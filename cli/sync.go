package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/wire"
)

// Copies of one space: remotes, fetch, pull, push, clone and private
// sessions. The local server does the transfer (it keeps the remote's
// token); these commands ask it to and print what happened.

const spaceFlagHelp = "the space (default: SMRITI_SPACE, else the space whose project root holds this directory)"

func newRemoteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Manage a space's remotes: other Smriti servers or git repositories holding a copy of it",
		Long: `A remote is another Smriti server holding a copy of a space (a laptop's,
a team server's, CI's), or a git repository the local server reaches with
the system git (the space's records kept under refs/smriti/<space-id>/,
never touching the project's branches). smriti fetch, pull and push
exchange checkpoints, sessions and turns with it; a private session never
leaves this server.`,
	}
	cmd.AddCommand(newRemoteAddCmd(), newRemoteListCmd(), newRemoteShowCmd(), newRemoteRemoveCmd())
	return cmd
}

func newRemoteAddCmd() *cobra.Command {
	var space, tokenEnv, remoteSpace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add NAME URL",
		Short: "Add a remote: NAME (e.g. origin) for the Smriti server or git repository at URL",
		Long: `Add a remote to a space. The space's id there is the same as here unless
--remote-space names another (a clone keeps ids). With --token-env VAR the
token in that environment variable is kept by the local server as the
remote's secret: it is never shown again (only its last four characters).

URL is a git repository when it is an absolute path, an ssh://, git:// or
file:// URL, an scp-like git@host:path, an http(s) URL ending in .git, or
any URL after "git+" (git+https://host/me/notes); any other http(s) URL is
a Smriti server. A git remote takes no token: the server's git and its
credentials (ssh keys, credential helpers) reach it.`,
		Example: `  smriti remote add origin https://smriti.example.com --token-env SMRITI_TEAM_TOKEN
  smriti remote add origin git@github.com:me/notes.git
  smriti remote add backup /srv/git/notes.git`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			req := wire.RemoteRequest{Name: args[0], URL: args[1]}
			if remoteSpace != "" {
				req.RemoteSpaceID = &remoteSpace
			}
			if tokenEnv != "" {
				tok := strings.TrimSpace(os.Getenv(tokenEnv))
				if tok == "" {
					return failf("--token-env %s: the variable is empty or unset; export the token first", tokenEnv)
				}
				req.Token = &tok
			}
			r, err := c.AddRemote(cmd.Context(), sp.ID, req)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, r)
			}
			fmt.Fprintf(env.Stdout, "Added remote %s → %s for %s\n", r.Name, r.URL, sp.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "the environment variable holding an API token for the remote (auth mode)")
	cmd.Flags().StringVar(&remoteSpace, "remote-space", "", "the space's id on the remote (default: the same id)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the remote as JSON")
	return cmd
}

func newRemoteListCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a space's remotes and where each branch stands against them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			list, err := c.Remotes(cmd.Context(), sp.ID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintf(env.Stdout, "%s has no remote; add one with `smriti remote add origin URL`\n", sp.Name)
				return nil
			}
			for _, r := range list {
				writeRemote(env.Stdout, &r)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the remotes as JSON")
	return cmd
}

func writeRemote(w io.Writer, r *wire.RemoteOut) {
	tok := ""
	if r.Token != nil {
		tok = "  token " + *r.Token
	}
	fmt.Fprintf(w, "%s\t%s%s\n", r.Name, r.URL, tok)
	for _, d := range r.Divergence {
		fmt.Fprintf(w, "  %s\n", d.Description)
	}
}

func newRemoteShowCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a remote: its URL, its branch heads as last seen, and ahead/behind",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			r, err := c.Remote(cmd.Context(), sp.ID, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, r)
			}
			writeRemote(env.Stdout, r)
			for _, h := range r.Heads {
				fmt.Fprintf(env.Stdout, "  %s/%s at %s\n", r.Name, h.Branch, textutil.ShortHash(h.CommitHash))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the remote as JSON")
	return cmd
}

func newRemoteRemoveCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a remote, its heads and whatever was fetched from it and not pulled",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			if err := c.RemoveRemote(cmd.Context(), sp.ID, args[0]); err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, map[string]any{"removed": args[0], "space_id": sp.ID})
			}
			fmt.Fprintf(env.Stdout, "Removed remote %s from %s\n", args[0], sp.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// commandSpace is a command's environment, client and space (--space,
// else SMRITI_SPACE, else the project root's).
func commandSpace(cmd *cobra.Command, space string) (*Env, *client.Client, *wire.Repo, error) {
	env := envOf(cmd)
	c := env.Client()
	sp, err := spaceForCommand(cmd.Context(), env, c, space)
	return env, c, sp, err
}

func remoteArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return "origin"
}

func newFetchCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fetch [REMOTE]",
		Short: "Bring what this copy lacks from a remote (default origin) without moving any local branch",
		Long: `Fetch checkpoints, sessions and turns this copy lacks from a remote. Each
record is verified as it arrives (its hash recomputed, its parent present)
and kept without moving any local branch: only the remote-tracking heads
(origin/main) move. smriti pull brings them onto the local branch. Run again,
a fetch writes nothing; one that was cut off resumes.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			stop := spinner(env, "fetching from "+remoteArg(args)+"…")
			f, err := c.Fetch(cmd.Context(), sp.ID, remoteArg(args))
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, f)
			}
			fmt.Fprintf(env.Stdout, "Fetched from %s: %s\n", f.Remote, countsText(f.Staged))
			for _, d := range f.Divergence {
				fmt.Fprintf(env.Stdout, "  %s\n", d.Description)
			}
			warnSkipped(env.Stderr, f.Staged)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func countsText(c wire.SyncCounts) string {
	if c.Checkpoints+c.Sessions+c.Turns == 0 {
		return "nothing new"
	}
	return fmt.Sprintf("%d checkpoint(s), %d session(s), %d turn(s)", c.Checkpoints, c.Sessions, c.Turns)
}

func warnSkipped(w io.Writer, c wire.SyncCounts) {
	for _, s := range c.Skipped {
		fmt.Fprintf(w, "warning: left out %s\n", s)
	}
}

func newPullCmd() *cobra.Command {
	var space, branch, onConflict string
	var asJSON, noFetch bool
	cmd := &cobra.Command{
		Use:   "pull [REMOTE]",
		Short: "Fetch, then bring a remote's branch into the local one (fast-forward, or a merge by item id)",
		Long: `Fetch from a remote (default origin), then integrate its branch (default
main) into the local one: a fast-forward when the local branch is part of
the fetched history, otherwise a three-way merge by item id against the
true common ancestor, written on top of both lines.

Items both copies changed follow --on-conflict:
  propose  (default) keep the local side and leave a proposal holding the
           other side of each conflict: accept it (smriti proposals accept)
           to take that side, reject it to keep this one
  fail     write nothing and list the conflicts
  ours     keep the local side of every conflict
  theirs   take the remote's side of every conflict`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			stop := spinner(env, "pulling from "+remoteArg(args)+"…")
			res, err := c.Pull(cmd.Context(), sp.ID, remoteArg(args), wire.PullRequest{Branch: branch, OnConflict: onConflict, NoFetch: noFetch})
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, res)
			}
			writePull(env.Stdout, remoteArg(args), res)
			warnSkipped(env.Stderr, res.Applied)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().StringVar(&branch, "branch", "", "the branch to pull (default main)")
	cmd.Flags().StringVar(&onConflict, "on-conflict", "propose", "propose, fail, ours or theirs (see above)")
	cmd.Flags().BoolVar(&noFetch, "no-fetch", false, "integrate what the last fetch brought, without fetching")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func writePull(w io.Writer, name string, res *wire.PullOut) {
	head := "none"
	if res.Head != nil {
		head = textutil.ShortHash(res.Head.CommitHash)
	}
	switch res.Outcome {
	case "up_to_date":
		fmt.Fprintf(w, "Already up to date with %s (head %s)\n", name, head)
	case "fast_forward":
		fmt.Fprintf(w, "Fast-forwarded to %s from %s\n", head, name)
	default:
		fmt.Fprintf(w, "Merged %s: head %s\n", name, head)
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(w, "%d item(s) changed on both copies:\n", len(res.Conflicts))
		for _, cf := range res.Conflicts {
			fmt.Fprintf(w, "  %s %s: here %q, %s %q\n", cf.Field, cf.Key, cf.Ours, name, cf.Theirs)
		}
	}
	if res.Proposal != nil {
		fmt.Fprintf(w, "Kept this copy's side; proposal %s holds %s's side: `smriti proposals accept %s` takes it, `smriti proposals reject %s` keeps this one\n",
			shortID(res.Proposal.ID), name, shortID(res.Proposal.ID), shortID(res.Proposal.ID))
	}
}

func newPushCmd() *cobra.Command {
	var space, branch string
	var asJSON, propose bool
	cmd := &cobra.Command{
		Use:   "push [REMOTE]",
		Short: "Send a remote (default origin) what it lacks of a branch; its head moves by fast-forward only",
		Long: `Push a branch (default main) to a remote. The remote's branch moves only
by fast-forward, as a compare-and-swap on the head this copy saw there: if
someone pushed meanwhile the push is refused naming both heads — run
smriti pull, then push again. A retried push stores nothing twice. Private
sessions never leave this server.

With --propose the branch's state lands on the remote as a pending proposal
(a pull request for reasoning state): nothing there moves until someone
accepts it with smriti proposals accept, which rebases it by item id.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			stop := spinner(env, "pushing to "+remoteArg(args)+"…")
			res, err := c.Push(cmd.Context(), sp.ID, remoteArg(args), wire.PushRequest{Branch: branch, Propose: propose})
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, res)
			}
			if res.ProposalID != nil {
				fmt.Fprintf(env.Stdout, "Proposed %s's state on %s as proposal %s; it waits there for review (smriti proposals show %s on that server)\n",
					res.Branch, remoteArg(args), shortID(*res.ProposalID), shortID(*res.ProposalID))
				return nil
			}
			if res.Outcome == "up_to_date" {
				fmt.Fprintf(env.Stdout, "%s on %s is already at %s\n", res.Branch, remoteArg(args), textutil.ShortHash(res.NewHead))
				return nil
			}
			old := "nothing"
			if res.OldHead != nil {
				old = textutil.ShortHash(*res.OldHead)
			}
			fmt.Fprintf(env.Stdout, "Pushed %s to %s: %s → %s (%s)\n", res.Branch, remoteArg(args), old, textutil.ShortHash(res.NewHead), countsText(res.Stored))
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", spaceFlagHelp)
	cmd.Flags().StringVar(&branch, "branch", "", "the branch to push (default main)")
	cmd.Flags().BoolVar(&propose, "propose", false, "land the state on the remote as a proposal for review instead of moving its branch")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newCloneCmd() *cobra.Command {
	var name, tokenEnv string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "clone URL SPACE_ID",
		Short: "Make the local server's exact copy of a space on another Smriti server or in a git repository (same ids and hashes)",
		Long: `Clone a space from the Smriti server or git repository at URL (see
smriti remote add --help for which is which) into the local one: every
checkpoint, item, session and turn with its id and hash (private sessions
stay there), streamed through a spool file so memory stays bounded. The
other copy becomes the space's remote (origin, or --name).`,
		Example: `  smriti clone https://smriti.example.com 0b9f…e1 --token-env SMRITI_TEAM_TOKEN
  smriti clone git@github.com:me/notes.git 0b9f…e1`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			c := env.Client()
			id, err := smriti.ParseID("SPACE_ID", args[1])
			if err != nil {
				return usageErr(cmd, "SPACE_ID must be the space's full id on the other server")
			}
			sid := id.String()
			req := wire.CloneRequest{URL: args[0], SpaceID: &sid, Name: name}
			if tokenEnv != "" {
				tok := strings.TrimSpace(os.Getenv(tokenEnv))
				if tok == "" {
					return failf("--token-env %s: the variable is empty or unset; export the token first", tokenEnv)
				}
				req.Token = &tok
			}
			stop := spinner(env, "cloning "+sid[:8]+"…")
			out, err := c.Clone(cmd.Context(), req)
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "Cloned %s (%s) from %s as remote %s\n", out.Repo.Name, out.Repo.ID, out.Remote.URL, out.Remote.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the remote's name here (default origin)")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "the environment variable holding an API token for the other server (auth mode)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the copy as JSON")
	return cmd
}

func newPrivateCmd() *cobra.Command {
	var off, asJSON bool
	cmd := &cobra.Command{
		Use:   "private SESSION_ID",
		Short: "Mark a session private: its turns, quotes, receipts and context records never leave this server",
		Long: `Mark a session private (or shared again with --off). A private session's
turns, the quotes they lent to items, its receipts and context records are
never sent by push, fetch, clone or export; an item drafted from it travels
with its provenance reference and the quote withheld. Sessions are shared
by default.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			id, err := smriti.ParseID("SESSION_ID", args[0])
			if err != nil {
				return usageErr(cmd, "SESSION_ID must be a session's full id")
			}
			out, err := env.Client().SetSessionPrivate(cmd.Context(), id, !off)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, out)
			}
			if out.Private {
				fmt.Fprintf(env.Stdout, "Session %s is private: it never leaves this server\n", shortID(id))
			} else {
				fmt.Fprintf(env.Stdout, "Session %s is shared: push, fetch and clone carry it\n", shortID(id))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&off, "off", false, "share the session again")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
