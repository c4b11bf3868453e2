package main

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"smriti/store"
)

// dbFlag is --db as the commands that open the database directly read it:
// the flag, else SMRITI_DATABASE_URL, else SMRITI_DB, else the default file.
func dbFlag(cmd *cobra.Command, v *string) {
	def := defaultDB()
	for _, key := range []string{"SMRITI_DB", "SMRITI_DATABASE_URL"} {
		if e := os.Getenv(key); e != "" {
			def = e
		}
	}
	cmd.Flags().StringVar(v, "db", def, "database: a file path or sqlite:PATH, or a postgres:// URL (env SMRITI_DATABASE_URL or SMRITI_DB)")
}

func newMigrateCmd() *cobra.Command {
	var dsn string
	var status, asJSON bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations and exit (--status: list them, apply nothing)",
		Long: `Apply every embedded migration the database lacks, then exit. "smriti serve"
migrates at start too; run this first when several replicas share one
PostgreSQL database, so that a rolling upgrade starts replicas on a schema
that is already current. Replicas that migrate together take turns on a lock.

--status lists each migration as applied (with its time) or pending and
changes nothing.`,
		Example: `  smriti migrate --status
  smriti migrate --db postgres://smriti@db/smriti`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			before, err := store.MigrationStatus(ctx, dsn)
			if err != nil {
				return fmt.Errorf("%s: %w", redactDSN(dsn), err)
			}
			if !status {
				db, err := store.Open(ctx, dsn, nil)
				if err != nil {
					return fmt.Errorf("migrate %s: %w", redactDSN(dsn), err)
				}
				db.Close()
			}
			out := cmd.OutOrStdout()
			if asJSON {
				list := before
				if !status {
					if list, err = store.MigrationStatus(ctx, dsn); err != nil {
						return err
					}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			if status {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "VERSION\tSTATE\tAPPLIED AT\tFILE")
				for _, m := range before {
					state, at := "pending", "-"
					if m.Applied {
						state = "applied"
						if m.AppliedAt != nil {
							at = m.AppliedAt.Format("2006-01-02T15:04:05Z")
						}
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", m.Version, state, at, m.Name)
				}
				return tw.Flush()
			}
			applied := 0
			var last int64
			for _, m := range before {
				if !m.Applied {
					applied++
					fmt.Fprintf(out, "applied %s\n", m.Name)
				}
				last = m.Version
			}
			if applied == 0 {
				fmt.Fprintf(out, "Nothing to apply: the database is at version %d.\n", last)
			} else {
				fmt.Fprintf(out, "Applied %d migration(s): the database is at version %d.\n", applied, last)
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().BoolVar(&status, "status", false, "list the migrations as applied or pending; apply nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the migrations as JSON")
	return cmd
}
