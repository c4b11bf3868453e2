package cli

import (
	"fmt"
	"smriti/secretlog"
	"strings"

	"github.com/spf13/cobra"
)

func newSecretsPurgeCmd() *cobra.Command {
	var space, rule, fingerprint string
	var asJSON, full bool
	cmd := &cobra.Command{
		Use:   "purge (--rule RULE | --fingerprint FP)",
		Short: "Remove a stored secret from a space wherever it is stored; the hash chain still verifies (owner only, audited)",
		Long: `Purge replaces a secret that was stored before redaction existed (or came
in a bundle) with its rule's marker wherever the space stores it: turns and
their context records, session titles, checkpoints and their items, notes,
claims, proposals, receipts, records fetched and not yet applied, and the
search index. Choose every value a rule finds (--rule) or one value by its
fingerprint (--fingerprint, as "smriti secrets scan" reports it); values on
the space's allowlist are kept unless named by fingerprint.

A checkpoint keeps the digest of each text the purge replaced, so every
checkpoint of hash version 3 still verifies and "smriti verify" says, for
each purged field, who purged it, when and for which rule. An older
checkpoint's hash covers the text itself: verify then says its content is
no longer proven instead of failing the chain.

Once the rows are rewritten, the old bytes leave the database's files too:
SQLite's file is rebuilt from its live rows and its write-ahead log emptied
(writes wait while that runs). PostgreSQL's tables are vacuumed and their
search indexes rebuilt; freed space inside a table can still hold old bytes
until reused, so --full copies the tables into new files (VACUUM FULL:
their reads and writes wait meanwhile). The server's own write-ahead log,
WAL archives and backups taken before keep the value until recycled: rotate
the credential as well.

Only the space's owner may purge (with a token, one of the admin scope).
The purge is recorded: who, when, what was chosen, which rows.`,
		Example: `  smriti secrets scan --space demo
  smriti secrets purge --space demo --rule github-pat
  smriti secrets purge --fingerprint 3f9a1c2b4d5e6f70 --json
  smriti secrets purge --space team --rule github-pat --full`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rule == "" && fingerprint == "" {
				return fmt.Errorf("say what to purge: --rule RULE or --fingerprint FP (smriti secrets scan lists both)")
			}
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			stop := spinner(env, "purging (the database's files are rewritten after)")
			p, err := c.PurgeSecrets(cmd.Context(), sp.ID, rule, fingerprint, full)
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, p)
			}
			if p.Values == 0 {
				fmt.Fprintf(env.Stdout, "nothing to purge in %s: no stored value matches\n", spaceName(sp))
				if full {
					fmt.Fprintf(env.Stdout, "database files: %s\n", erasureLine(p.Erasure))
				}
				return nil
			}
			for _, r := range p.Rows {
				fmt.Fprintf(env.Stdout, "%s %s: %s\n", r.Kind, r.ID, r.Field)
			}
			fmt.Fprintf(env.Stdout, "purged %d value(s) from %d field(s) of %s (purge %s, by %s); smriti verify reports the purged fields\n",
				p.Values, len(p.Rows), spaceName(sp), shortID(p.ID), p.By)
			fmt.Fprintf(env.Stdout, "database files: %s\n", erasureLine(p.Erasure))
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (name, slug or id; default SMRITI_SPACE, else this project's)")
	cmd.Flags().StringVar(&rule, "rule", "", "purge every value this rule finds (github-pat, aws-access-token, …)")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "purge the one value with this fingerprint (16 hex digits)")
	cmd.Flags().BoolVar(&full, "full", false, "on PostgreSQL, also copy the rewritten tables into new files (VACUUM FULL: their reads and writes wait meanwhile); runs even when nothing is found, to finish an earlier purge")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSecretsAllowCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "allow RULE FINGERPRINT",
		Short: "Keep one value that only looks like a secret (a test fixture's fake key) in a space: every door lets it through there (owner only)",
		Long: `Allow names one value by the rule that finds it and its fingerprint, as a
redaction notice ("redacted: github-pat, fingerprint …") and "smriti secrets
scan" report them. From then on every write to the space keeps that value as
it is; other values of the rule, and other spaces, are redacted as before.
There is no switch for a whole rule.`,
		Example: `  smriti secrets allow github-pat 3f9a1c2b4d5e6f70 --space demo
  smriti secrets allowlist --space demo
  smriti secrets disallow github-pat 3f9a1c2b4d5e6f70 --space demo`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			a, err := c.AllowSecret(cmd.Context(), sp.ID, args[0], args[1])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, a)
			}
			fmt.Fprintf(env.Stdout, "allowed %s %s in %s\n", a.Rule, a.Fingerprint, spaceName(sp))
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (name, slug or id; default SMRITI_SPACE, else this project's)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSecretsAllowlistCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "allowlist",
		Short:   "List the values a space keeps although they look like secrets",
		Example: `  smriti secrets allowlist --space demo --json`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			list, err := c.SecretAllowlist(cmd.Context(), sp.ID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintf(env.Stdout, "%s allows no secrets (smriti secrets allow RULE FINGERPRINT adds one)\n", spaceName(sp))
			}
			for _, a := range list {
				fmt.Fprintf(env.Stdout, "%s %s (by %s, %s)\n", a.Rule, a.Fingerprint, a.CreatedBy, a.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (name, slug or id; default SMRITI_SPACE, else this project's)")
	jsonFlag(cmd, &asJSON)
	return cmd
}

func newSecretsDisallowCmd() *cobra.Command {
	var space string
	cmd := &cobra.Command{
		Use:     "disallow RULE FINGERPRINT",
		Aliases: []string{"remove"},
		Short:   "Take a value off a space's allowlist: every door redacts it again (owner only)",
		Example: `  smriti secrets disallow github-pat 3f9a1c2b4d5e6f70 --space demo`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, c, sp, err := commandSpace(cmd, space)
			if err != nil {
				return err
			}
			if err := c.RemoveSecretAllow(cmd.Context(), sp.ID, args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s %s is redacted again in %s\n", args[0], args[1], spaceName(sp))
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space (name, slug or id; default SMRITI_SPACE, else this project's)")
	return cmd
}

// erasureLine says what a purge's Erasure means for the database's files.
func erasureLine(e string) string {
	switch {
	case e == secretlog.ErasureRewritten:
		return "rewritten; no copy of the old text remains in them (the server's write-ahead log, WAL archives and backups taken before can still hold it until recycled)"
	case e == secretlog.ErasureVacuumed:
		return "vacuumed; freed space in the tables can still hold old bytes until reused: run again with --full to rewrite the tables"
	case strings.HasPrefix(e, secretlog.ErasureIncomplete):
		return e + " (the purge stands; run it again with --full)"
	}
	return e
}
