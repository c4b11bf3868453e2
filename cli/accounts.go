package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/account"
	"smriti/credential"
	"smriti/internal/clock"
	"smriti/internal/nonnil"
	"smriti/wire"
)

// AccountOpener opens the account store of the database named by dsn; the
// caller closes what it returns.
type AccountOpener func(ctx context.Context, dsn string) (account.Service, io.Closer, error)

// AccountCommands returns `smriti user` and `smriti token`. They open the
// database directly (--db, else SMRITI_DATABASE_URL, else SMRITI_DB, else
// defaultDB) rather than going through the server: the first user cannot
// sign in before it exists, and whoever may open the database file already
// holds every secret it protects.
func AccountCommands(defaultDB string, open AccountOpener) []*cobra.Command {
	return []*cobra.Command{newUserCmd(defaultDB, open), newTokenCmd(defaultDB, open)}
}

type accountFlags struct {
	db     string
	asJSON bool
}

func (f *accountFlags) add(cmd *cobra.Command, defaultDB string) {
	cmd.Flags().StringVar(&f.db, "db", firstNonEmpty(os.Getenv("SMRITI_DATABASE_URL"), os.Getenv("SMRITI_DB"), defaultDB),
		"database: a file path or sqlite:PATH, or a postgres:// URL (env SMRITI_DATABASE_URL or SMRITI_DB)")
	jsonFlag(cmd, &f.asJSON)
}

// withAccounts opens the account store for one command.
func withAccounts(cmd *cobra.Command, open AccountOpener, dsn string, fn func(ctx context.Context, a account.Service) error) error {
	ctx := cmd.Context()
	a, closer, err := open(ctx, dsn)
	if err != nil {
		return err
	}
	defer closer.Close()
	return fn(ctx, a)
}

func newUserCmd(defaultDB string, open AccountOpener) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Manage the accounts of a server in auth mode (add, list, disable)",
		Long: `Manage the users who may sign in when the server runs with --auth.

These commands open the database directly (--db or SMRITI_DATABASE_URL), not
the server, so they work before the first user exists.`,
	}
	cmd.AddCommand(newUserAddCmd(defaultDB, open), newUserListCmd(defaultDB, open), newUserDisableCmd(defaultDB, open))
	return cmd
}

func newUserAddCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	cmd := &cobra.Command{
		Use:   "add <username>",
		Short: "Add a user; the password is read from standard input",
		Long: `Add a user who can sign in to the web workspace and make API tokens.

The password is the first line of standard input (at least 8 characters), so
it never appears in the shell history or the process list. It is stored only
as an argon2id hash.`,
		Example: `  printf '%s\n' "$PASSWORD" | smriti user add alice
  smriti user add bob --db postgres://smriti@db/smriti < password.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pw, err := readPassword(cmd.InOrStdin())
			if err != nil {
				return err
			}
			if err := account.ValidateUsername(args[0]); err != nil {
				return err
			}
			if err := credential.ValidatePassword(pw); err != nil {
				return err
			}
			hash, err := credential.HashPassword(pw)
			if err != nil {
				return err
			}
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				u, err := a.CreateUser(ctx, args[0], hash)
				if err != nil {
					return err
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), wire.UserOf(u))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Added user %s  `%s`\n", u.Username, u.ID)
				return nil
			})
		},
	}
	f.add(cmd, defaultDB)
	return cmd
}

// readPassword reads the first line of r.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read password: %w", err)
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		return "", failf("no password on standard input: pipe it in, for example printf '%%s\\n' \"$PASSWORD\" | smriti user add NAME")
	}
	return pw, nil
}

func newUserListCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List users (never their passwords)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				users, err := a.Users(ctx)
				if err != nil {
					return err
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), nonnil.Convert(users, wire.UserOf))
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "%d user(s):\n", len(users))
				for _, u := range users {
					state := ""
					if u.Disabled {
						state = " (disabled)"
					}
					if u.ID == smriti.LocalUserID {
						state = " (built-in local user; cannot sign in)"
					}
					fmt.Fprintf(w, "- **%s** `%s`%s\n", u.Username, u.ID, state)
				}
				return nil
			})
		},
	}
	f.add(cmd, defaultDB)
	return cmd
}

func newUserDisableCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	var enable bool
	cmd := &cobra.Command{
		Use:   "disable <username>",
		Short: "Stop a user signing in or using their tokens (--enable undoes it)",
		Long: `Disable a user: their browser sessions end at once and their API tokens stop
working (they come back if the user is enabled again; revoke them to end them
for good).`,
		Example: `  smriti user disable alice
  smriti user disable alice --enable`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				u, err := a.SetUserDisabled(ctx, args[0], !enable)
				if err != nil {
					return withHint(err, smriti.ENOTFOUND, "Run `smriti user list` to see the users.")
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), wire.UserOf(u))
				}
				verb := "Disabled"
				if enable {
					verb = "Enabled"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s user %s\n", verb, u.Username)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&enable, "enable", false, "enable the user again instead")
	f.add(cmd, defaultDB)
	return cmd
}

func newTokenCmd(defaultDB string, open AccountOpener) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage a user's API tokens (create, list, revoke)",
		Long: `Manage API tokens, which the CLI and MCP send as "Authorization: Bearer" when
SMRITI_TOKEN is set. A token's secret is shown once, when it is made; only
its SHA-256 is stored.

Scopes: read (GET and HEAD only), write (everything but account management),
admin (also tokens). These commands open the database directly (--db or
SMRITI_DATABASE_URL) and act for --user. A signed-in user can also manage their
own tokens over the API (POST/GET/DELETE /api/v4/auth/tokens).`,
	}
	cmd.AddCommand(newTokenCreateCmd(defaultDB, open), newTokenListCmd(defaultDB, open), newTokenRevokeCmd(defaultDB, open))
	return cmd
}

// userFlag adds the required --user flag.
func userFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "user", "", "the user the token belongs to (required)")
	_ = cmd.MarkFlagRequired("user")
}

func lookupUser(ctx context.Context, a account.Service, name string) (*account.User, error) {
	u, _, err := a.UserByName(ctx, name)
	return u, withHint(err, smriti.ENOTFOUND, "Run `smriti user list` to see the users, or `smriti user add` to make one.")
}

func newTokenCreateCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	var user, scope, expires, name string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Make an API token and print its secret (shown this once)",
		Example: `  smriti token create --user alice --scope write --expires 720h
  export SMRITI_TOKEN=$(smriti token create --user alice --scope read --json | jq -r .secret)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				u, err := lookupUser(ctx, a, user)
				if err != nil {
					return err
				}
				tok, secret, err := account.IssueToken(ctx, a, u.ID, account.TokenRequest{Name: name, Scope: scope, ExpiresIn: expires}, clock.Now())
				if err != nil {
					return err
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), wire.TokenCreated{Token: wire.TokenOf(tok), Secret: secret})
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "Created %s token `%s` for %s%s\n", tok.Scope, tok.ID, u.Username, expiry(tok))
				fmt.Fprintf(w, "Secret (shown once; set it as SMRITI_TOKEN):\n%s\n", secret)
				return nil
			})
		},
	}
	userFlag(cmd, &user)
	cmd.Flags().StringVar(&scope, "scope", "", "read | write | admin (required)")
	_ = cmd.MarkFlagRequired("scope")
	cmd.Flags().StringVar(&expires, "expires", "", "lifetime such as 720h (default: never expires)")
	cmd.Flags().StringVar(&name, "name", "", "a label to recognise the token by")
	f.add(cmd, defaultDB)
	return cmd
}

func expiry(t *account.APIToken) string {
	if t.ExpiresAt == nil {
		return ", no expiry"
	}
	return ", expires " + t.ExpiresAt.UTC().Format(time.RFC3339)
}

func newTokenListCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	var user string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a user's tokens, newest first (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				u, err := lookupUser(ctx, a, user)
				if err != nil {
					return err
				}
				toks, err := a.Tokens(ctx, u.ID)
				if err != nil {
					return err
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), nonnil.Convert(toks, wire.TokenOf))
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "%d token(s) of %s:\n", len(toks), u.Username)
				for _, t := range toks {
					state := expiry(t)
					if t.RevokedAt != nil {
						state = ", revoked " + t.RevokedAt.UTC().Format(time.RFC3339)
					}
					label := ""
					if t.Name != "" {
						label = " " + t.Name
					}
					fmt.Fprintf(w, "- `%s`%s (%s)%s\n", t.ID, label, t.Scope, state)
				}
				return nil
			})
		},
	}
	userFlag(cmd, &user)
	f.add(cmd, defaultDB)
	return cmd
}

func newTokenRevokeCmd(defaultDB string, open AccountOpener) *cobra.Command {
	var f accountFlags
	var user string
	cmd := &cobra.Command{
		Use:     "revoke <token-id-or-name>",
		Short:   "Revoke a token at once (it answers 401 from then on)",
		Example: "  smriti token revoke 0b7c9d2e-… --user alice\n  smriti token revoke ci --user alice",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAccounts(cmd, open, f.db, func(ctx context.Context, a account.Service) error {
				u, err := lookupUser(ctx, a, user)
				if err != nil {
					return err
				}
				id, err := tokenNamed(ctx, a, u, args[0])
				if err != nil {
					return err
				}
				t, err := a.RevokeToken(ctx, u.ID, id)
				if err != nil {
					return withHint(err, smriti.ENOTFOUND, "Run `smriti token list --user "+u.Username+"` to see the tokens.")
				}
				if f.asJSON {
					return printJSON(cmd.OutOrStdout(), wire.TokenOf(t))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Revoked token `%s` of %s\n", t.ID, u.Username)
				return nil
			})
		},
	}
	userFlag(cmd, &user)
	f.add(cmd, defaultDB)
	return cmd
}

// tokenNamed resolves a token id, or the name of exactly one of the user's
// live tokens.
func tokenNamed(ctx context.Context, a account.Service, u *account.User, ref string) (smriti.ID, error) {
	if id, err := smriti.ParseID("token", ref); err == nil {
		return id, nil
	}
	toks, err := a.Tokens(ctx, u.ID)
	if err != nil {
		return smriti.NilID, err
	}
	var found []smriti.ID
	for _, t := range toks {
		if t.Name == ref && t.RevokedAt == nil {
			found = append(found, t.ID)
		}
	}
	hint := "Run `smriti token list --user " + u.Username + "` to see the tokens."
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return smriti.NilID, withHint(smriti.Errorf(smriti.ENOTFOUND, "no live token of %s is named %q", u.Username, ref), smriti.ENOTFOUND, hint)
	}
	return smriti.NilID, withHint(smriti.Errorf(smriti.ECONFLICT, "%d live tokens of %s are named %q; revoke by id", len(found), u.Username, ref), smriti.ECONFLICT, hint)
}
