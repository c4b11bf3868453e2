package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"smriti/app"
	"smriti/store"
)

// backups is the backup use case over stores this command opens itself
// (--db), like "smriti user".
func backups() *app.Backups {
	return &app.Backups{
		Open: func(ctx context.Context, dsn string) (app.BackupStore, error) {
			db, err := store.Open(ctx, dsn, nil)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
		CheckSQLiteFile: store.CheckSQLiteFile,
		Version:         version,
		RedactDSN:       redactDSN,
	}
}

func newBackupCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Back up a store to a file and restore it into an empty one",
		Long: `Back up and restore a whole store. These commands open the database directly
(--db, else SMRITI_DATABASE_URL, else SMRITI_DB), like "smriti user".

On SQLite, "backup create" takes an online copy with VACUUM INTO while the
server keeps serving, then runs an integrity check on the copy. On
PostgreSQL it writes a bundle archive: every space's bundle (as
"smriti export" writes it), plus users, tokens and memberships. For a
byte-level copy of a PostgreSQL database use pg_dump -Fc and pg_restore.

"backup restore" writes a backup into an empty store and recomputes every
checkpoint hash; it refuses a store that already holds data.

(“smriti restore” restores a checkpoint for an agent; backups have their own
command.)`,
		Example: `  smriti backup create /var/backups/smriti/smriti-$(date +%F).db
  smriti backup restore smriti-2026-12-01.db --db /var/lib/smriti/smriti.db
  smriti backup create --db postgres://smriti@db/smriti smriti.tar.gz`,
	}
	cmd.AddCommand(newBackupCreateCmd(), newBackupRestoreCmd())
	return cmd
}

func newBackupCreateCmd() *cobra.Command {
	var dsn, format string
	cmd := &cobra.Command{
		Use:   "create FILE",
		Short: "Write a backup of the store to FILE (never overwrites)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			b, err := backups().Create(cmd.Context(), dsn, file, format)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if b.Format == "sqlite" {
				fmt.Fprintf(out, "Backed up to %s (%d bytes, SQLite); integrity check ok.\n", file, b.Bytes)
			} else {
				fmt.Fprintf(out, "Backed up %d space(s) to %s (bundle archive); every bundle checks.\n", b.Spaces, file)
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&format, "format", "auto", "sqlite (VACUUM INTO copy; SQLite stores only), bundles (bundle archive; either engine) or auto (sqlite on SQLite, bundles on PostgreSQL)")
	return cmd
}

func newBackupRestoreCmd() *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:   "restore FILE",
		Short: "Restore a backup into an empty store, then verify every checkpoint hash",
		Long: `Restore FILE, written by "smriti backup create", into the store --db names.
The store must be empty: an SQLite target must not exist yet (restoring an
SQLite backup copies the file); any other target may exist but must hold no
space, session or user. An SQLite backup restores into PostgreSQL through
bundles; a bundle archive restores into either engine. Afterwards every
checkpoint hash is recomputed, and the command fails if one does not match.

Stop any server on the target first; start it again on the restored store.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			v, err := backups().Restore(ctx, args[0], dsn)
			if err != nil {
				return err
			}
			if len(v.Mismatches) > 0 {
				return fmt.Errorf("restored, but %d checkpoint hash(es) do not match, the first %s: the backup was changed or damaged", len(v.Mismatches), v.Mismatches[0])
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Restored %d space(s), %d checkpoint(s), %d turn(s) into %s; every checkpoint hash matches.\n",
				v.Spaces, v.Checkpoints, v.Turns, redactDSN(dsn))
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	return cmd
}
