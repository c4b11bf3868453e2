package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti"
	"smriti/portability"
	"smriti/store"
)

// A backup is one of two kinds of file, told apart by their first bytes:
//   - an SQLite database, the copy VACUUM INTO takes of a serving SQLite
//     store: everything, accounts and events included;
//   - a bundle archive (gzip-compressed tar): manifest.json (the spaces, their
//     owners, and the accounts) then spaces/<id>.jsonl, each space's bundle as
//     `smriti export` writes it. It is how a PostgreSQL store is backed up
//     without pg_dump, and it restores into either engine.
const (
	backupFormat        = "smriti-backup"
	backupFormatVersion = 1
	manifestName        = "manifest.json"
)

var sqliteMagic = []byte("SQLite format 3\x00")

// backupManifest is manifest.json of a bundle archive.
type backupManifest struct {
	Format        string             `json:"format"`
	FormatVersion int                `json:"format_version"`
	CreatedAt     time.Time          `json:"created_at"`
	SmritiVersion string             `json:"smriti_version"`
	Engine        string             `json:"engine"`
	Spaces        []store.SpaceOwner `json:"spaces"`
	Accounts      *store.Accounts    `json:"accounts"`
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
			ctx := cmd.Context()
			file := args[0]
			if _, err := os.Lstat(file); err == nil {
				return fmt.Errorf("%s already exists; a backup never overwrites a file", file)
			}
			db, err := store.Open(ctx, dsn, nil)
			if err != nil {
				return fmt.Errorf("open database %s: %w", redactDSN(dsn), err)
			}
			defer db.Close()
			if format == "auto" {
				format = "bundles"
				if db.Engine() == "sqlite" {
					format = "sqlite"
				}
			}
			if err := backupHoldsNoSecret(ctx, db); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch format {
			case "sqlite":
				if err := backupSQLite(ctx, db, file); err != nil {
					return err
				}
				st, err := os.Stat(file)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "Backed up to %s (%d bytes, SQLite); integrity check ok.\n", file, st.Size())
			case "bundles":
				n, err := writeToNewFile(file, func(w io.Writer) (int, error) { return writeBundleBackup(ctx, db, w) })
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "Backed up %d space(s) to %s (bundle archive); every bundle checks.\n", n, file)
			default:
				return fmt.Errorf("--format %q: use auto, sqlite or bundles", format)
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&format, "format", "auto", "sqlite (VACUUM INTO copy; SQLite stores only), bundles (bundle archive; either engine) or auto (sqlite on SQLite, bundles on PostgreSQL)")
	return cmd
}

// backupSQLite copies the store to file.partial with VACUUM INTO, checks
// the copy, and only then gives it its name, so file never names half a
// backup.
func backupSQLite(ctx context.Context, db *store.Store, file string) error {
	tmp := file + ".partial"
	os.Remove(tmp)
	if err := db.VacuumInto(ctx, tmp); err != nil {
		return err
	}
	if err := store.CheckSQLiteFile(ctx, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, file)
}

// writeToNewFile runs write into file.partial, syncs it and renames it to
// file.
func writeToNewFile(file string, write func(io.Writer) (int, error)) (int, error) {
	tmp := file + ".partial"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(f)
	n, err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return n, os.Rename(tmp, file)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeBundleBackup writes a bundle archive of every space of db to w and
// returns how many spaces it holds. Each space is one consistent snapshot
// (its export reads in one transaction); spaces are read one after another.
func writeBundleBackup(ctx context.Context, db *store.Store, w io.Writer) (int, error) {
	spaces, err := db.AllSpaces(ctx)
	if err != nil {
		return 0, err
	}
	accounts, err := db.ExportAccounts(ctx)
	if err != nil {
		return 0, err
	}
	manifest, err := json.MarshalIndent(backupManifest{Format: backupFormat, FormatVersion: backupFormatVersion,
		CreatedAt: db.Now().UTC(), SmritiVersion: version, Engine: db.Engine(), Spaces: spaces, Accounts: accounts}, "", "  ")
	if err != nil {
		return 0, err
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	mtime := db.Now().UTC().Truncate(time.Second)
	if err := tarFile(tw, manifestName, int64(len(manifest)), mtime, bytes.NewReader(manifest)); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp("", "smriti-backup-*.jsonl")
	if err != nil {
		return 0, err
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	for _, sp := range spaces {
		if err := tmp.Truncate(0); err != nil {
			return 0, err
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		bw, err := portability.NewBundleWriter(tmp)
		if err != nil {
			return 0, err
		}
		if err := db.ExportSpace(smriti.WithUser(ctx, sp.OwnerID), sp.ID, bw); err != nil {
			return 0, fmt.Errorf("export space %s (%s): %w", sp.ID, sp.Name, err)
		}
		if err := bw.Close(); err != nil {
			return 0, err
		}
		size, err := tmp.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, err
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		if _, _, err := portability.VerifyBundle(io.LimitReader(tmp, size)); err != nil {
			return 0, fmt.Errorf("bundle of space %s does not check: %w", sp.ID, err)
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		if err := tarFile(tw, "spaces/"+sp.ID.String()+".jsonl", size, mtime, io.LimitReader(tmp, size)); err != nil {
			return 0, err
		}
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	return len(spaces), zw.Close()
}

func tarFile(tw *tar.Writer, name string, size int64, mtime time.Time, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
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
			v, err := restoreBackup(ctx, args[0], dsn)
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

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// restoreBackup restores file into dsn and returns the verification of the
// restored store.
func restoreBackup(ctx context.Context, file, dsn string) (*store.StoreVerification, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("%s is not a Smriti backup (too short)", file)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	switch {
	case bytes.Equal(head, sqliteMagic) && !isPostgres(dsn):
		return restoreSQLiteFile(ctx, file, dsn)
	case bytes.Equal(head, sqliteMagic):
		return restoreSQLiteIntoPostgres(ctx, file, dsn)
	case head[0] == 0x1f && head[1] == 0x8b:
		db, err := openEmpty(ctx, dsn)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if err := restoreBundles(ctx, db, f); err != nil {
			return nil, err
		}
		return db.VerifyAll(ctx)
	default:
		return nil, fmt.Errorf("%s is neither an SQLite backup nor a bundle archive", file)
	}
}

// openEmpty opens (and migrates) the store at dsn and refuses it unless it
// is empty.
func openEmpty(ctx context.Context, dsn string) (*store.Store, error) {
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", redactDSN(dsn), err)
	}
	c, err := db.Contents(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if !c.Empty() {
		db.Close()
		return nil, fmt.Errorf("%s is not empty (%d space(s), %d session(s), %d user(s)): restore into a new database", redactDSN(dsn), c.Spaces, c.Sessions, c.Users)
	}
	return db, nil
}

// restoreSQLiteFile checks the backup, copies it to target.partial, syncs
// and renames it, then opens it (which applies any migration the backup
// predates) and verifies it.
func restoreSQLiteFile(ctx context.Context, file, dsn string) (*store.StoreVerification, error) {
	target := strings.TrimPrefix(dsn, "sqlite:")
	for _, p := range []string{target, target + "-wal", target + "-shm"} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s already exists: restore an SQLite backup to a path that does not exist yet (move the old store aside first)", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := store.CheckSQLiteFile(ctx, file); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, err
	}
	src, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if _, err := writeToNewFile(target, func(w io.Writer) (int, error) {
		_, err := io.Copy(w, src)
		return 0, err
	}); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, target, nil)
	if err != nil {
		return nil, fmt.Errorf("open restored store: %w", err)
	}
	defer db.Close()
	return db.VerifyAll(ctx)
}

// restoreSQLiteIntoPostgres opens a copy of an SQLite backup (opening
// migrates it, and the backup itself stays untouched), writes its bundle
// archive to a temporary file and restores that.
func restoreSQLiteIntoPostgres(ctx context.Context, file, dsn string) (*store.StoreVerification, error) {
	dir, err := os.MkdirTemp("", "smriti-restore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "backup.db")
	if _, err := restoreSQLiteFile(ctx, file, copyPath); err != nil {
		return nil, err
	}
	src, err := store.Open(ctx, copyPath, nil)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	archive := filepath.Join(dir, "backup.tar.gz")
	if _, err := writeToNewFile(archive, func(w io.Writer) (int, error) { return writeBundleBackup(ctx, src, w) }); err != nil {
		return nil, err
	}
	db, err := openEmpty(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := restoreBundles(ctx, db, f); err != nil {
		return nil, err
	}
	return db.VerifyAll(ctx)
}

// maxManifest bounds manifest.json, which is read into memory.
const maxManifest = 256 << 20

// restoreBundles reads a bundle archive: the accounts first, then each
// space imported under its owner with its ids kept, then the memberships.
func restoreBundles(ctx context.Context, db *store.Store, r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("read bundle archive: %w", err)
	}
	tr := tar.NewReader(zr)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != manifestName {
		return fmt.Errorf("read bundle archive: %s must come first", manifestName)
	}
	var m backupManifest
	if err := json.NewDecoder(io.LimitReader(tr, maxManifest)).Decode(&m); err != nil {
		return fmt.Errorf("read %s: %w", manifestName, err)
	}
	if m.Format != backupFormat || m.FormatVersion != backupFormatVersion {
		return fmt.Errorf("%s says format %q version %d; this smriti reads %q version %d", manifestName, m.Format, m.FormatVersion, backupFormat, backupFormatVersion)
	}
	if m.Accounts == nil {
		m.Accounts = &store.Accounts{}
	}
	if err := db.RestoreUsers(ctx, m.Accounts); err != nil {
		return err
	}
	owners := make(map[smriti.ID]smriti.ID, len(m.Spaces))
	for _, sp := range m.Spaces {
		owners[sp.ID] = sp.OwnerID
	}
	tmp, err := os.CreateTemp("", "smriti-restore-*.jsonl")
	if err != nil {
		return err
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	restored := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read bundle archive: %w", err)
		}
		name, ok := strings.CutPrefix(hdr.Name, "spaces/")
		id, perr := smriti.ParseID("space", strings.TrimSuffix(name, ".jsonl"))
		owner, known := owners[id]
		if !ok || perr != nil || !known {
			return fmt.Errorf("bundle archive: %s is not a space the manifest lists", hdr.Name)
		}
		if err := tmp.Truncate(0); err != nil {
			return err
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(tmp, tr); err != nil {
			return err
		}
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		sp, err := portability.ImportSpace(smriti.WithUser(ctx, owner), db, io.NewSectionReader(tmp, 0, hdr.Size), false)
		if err != nil {
			return fmt.Errorf("restore space %s: %w", id, err)
		}
		if sp.ID != id {
			return fmt.Errorf("bundle archive: %s holds space %s", hdr.Name, sp.ID)
		}
		restored++
	}
	if restored != len(m.Spaces) {
		return fmt.Errorf("bundle archive holds %d of the %d spaces its manifest lists", restored, len(m.Spaces))
	}
	return db.RestoreMembers(ctx, m.Accounts.Members)
}
