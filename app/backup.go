package app

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"smriti"
	"smriti/internal/clock"
	"smriti/portability"
	"smriti/records"
	"smriti/secretlog"
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
	Format        string               `json:"format"`
	FormatVersion int                  `json:"format_version"`
	CreatedAt     time.Time            `json:"created_at"`
	SmritiVersion string               `json:"smriti_version"`
	Engine        string               `json:"engine"`
	Spaces        []records.SpaceOwner `json:"spaces"`
	Accounts      *records.Accounts    `json:"accounts"`
}

// BackupStore is a whole store as a backup reads it and a restore writes
// it: every space and account, not one caller's view.
type BackupStore interface {
	portability.SpaceStore
	// Engine names the database engine: "sqlite" or "postgres".
	Engine() string
	// AllSpaces lists every space of every user, oldest first.
	AllSpaces(ctx context.Context) ([]records.SpaceOwner, error)
	// SecretAllowlist is the values a space allows (the caller must see it).
	SecretAllowlist(ctx context.Context, space smriti.ID) ([]secretlog.SecretAllow, error)
	// ExportAccounts reads the users, tokens and memberships no bundle
	// carries; RestoreUsers and RestoreMembers write them back.
	ExportAccounts(ctx context.Context) (*records.Accounts, error)
	RestoreUsers(ctx context.Context, a *records.Accounts) error
	RestoreMembers(ctx context.Context, members []records.AccountMember) error
	// VacuumInto writes a consistent copy of an SQLite store to path
	// (EINVALID on PostgreSQL).
	VacuumInto(ctx context.Context, path string) error
	// Contents counts the rows that make a store not empty.
	Contents(ctx context.Context) (records.Emptiness, error)
	// VerifyAll recomputes every checkpoint hash of the store.
	VerifyAll(ctx context.Context) (*records.StoreVerification, error)
	Close() error
}

// Backups backs a whole store up to a file and restores it into an empty
// one. It opens the databases itself (a restore opens the target, and an
// SQLite backup restored into PostgreSQL a copy of the backup too), so it
// is given how.
type Backups struct {
	// Open opens (and migrates) the store at dsn: a file path, "sqlite:PATH"
	// or a PostgreSQL URL.
	Open func(ctx context.Context, dsn string) (BackupStore, error)
	// CheckSQLiteFile checks an SQLite database file's integrity and
	// foreign keys.
	CheckSQLiteFile func(ctx context.Context, path string) error
	// Version is the program's, written into a bundle archive's manifest.
	Version string
	// RedactDSN hides a password in a database URL shown in an error (nil:
	// shown as given).
	RedactDSN func(dsn string) string
	// Now is the clock (clock.Now when nil).
	Now clock.Clock
}

// Backup is what Create wrote.
type Backup struct {
	// Format is "sqlite" or "bundles".
	Format string
	// Bytes is the size of an SQLite backup; Spaces the spaces of a bundle
	// archive.
	Bytes  int64
	Spaces int
}

func (b *Backups) now() time.Time {
	if b.Now == nil {
		return clock.Now()
	}
	return b.Now()
}

func (b *Backups) redact(dsn string) string {
	if b.RedactDSN == nil {
		return dsn
	}
	return b.RedactDSN(dsn)
}

// Create writes a backup of the store at dsn to file, which must not exist.
// format is "sqlite" (a VACUUM INTO copy; SQLite stores only), "bundles" (a
// bundle archive; either engine) or "auto" (sqlite on SQLite, bundles on
// PostgreSQL). A store that still holds a secret stored before redaction
// is refused before anything is written.
func (b *Backups) Create(ctx context.Context, dsn, file, format string) (*Backup, error) {
	if _, err := os.Lstat(file); err == nil {
		return nil, fmt.Errorf("%s already exists; a backup never overwrites a file", file)
	}
	db, err := b.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", b.redact(dsn), err)
	}
	defer db.Close()
	return b.Write(ctx, db, file, format)
}

// Write is Create on a store already open.
func (b *Backups) Write(ctx context.Context, db BackupStore, file, format string) (*Backup, error) {
	if format == "auto" {
		format = "bundles"
		if db.Engine() == "sqlite" {
			format = "sqlite"
		}
	}
	if err := holdsNoSecret(ctx, db); err != nil {
		return nil, err
	}
	switch format {
	case "sqlite":
		if err := b.backupSQLite(ctx, db, file); err != nil {
			return nil, err
		}
		st, err := os.Stat(file)
		if err != nil {
			return nil, err
		}
		return &Backup{Format: format, Bytes: st.Size()}, nil
	case "bundles":
		n, err := writeToNewFile(file, func(w io.Writer) (int, error) { return b.writeBundles(ctx, db, w) })
		if err != nil {
			return nil, err
		}
		return &Backup{Format: format, Spaces: n}, nil
	}
	return nil, fmt.Errorf("--format %q: use auto, sqlite or bundles", format)
}

// holdsNoSecret refuses a backup of a store that still holds a secret
// stored before redaction existed, naming it and the commands that find and
// purge it: nothing leaves with a secret, a backup file included. Values a
// space allows pass. It reads every space once, before the backup writes
// anything.
func holdsNoSecret(ctx context.Context, db BackupStore) error {
	spaces, err := db.AllSpaces(ctx)
	if err != nil {
		return err
	}
	for _, sp := range spaces {
		owner := smriti.WithUser(ctx, sp.OwnerID)
		allowed := map[string]bool{}
		list, err := db.SecretAllowlist(owner, sp.ID)
		if err != nil {
			return err
		}
		for _, a := range list {
			allowed[a.Rule+"/"+a.Fingerprint] = true
		}
		guard := &portability.SecretGuard{Space: sp.ID, Exit: "backup",
			Allowed: func(rule, fp string) bool { return allowed[rule+"/"+fp] }}
		if err := db.ExportSpace(owner, sp.ID, guard); err != nil {
			return fmt.Errorf("space %s (%s): %w", sp.ID, sp.Name, err)
		}
	}
	return nil
}

// backupSQLite copies the store to file.partial with VACUUM INTO, checks
// the copy, and only then gives it its name, so file never names half a
// backup.
func (b *Backups) backupSQLite(ctx context.Context, db BackupStore, file string) error {
	tmp := file + ".partial"
	os.Remove(tmp)
	if err := db.VacuumInto(ctx, tmp); err != nil {
		return err
	}
	if err := b.CheckSQLiteFile(ctx, tmp); err != nil {
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

// writeBundles writes a bundle archive of every space of db to w and
// returns how many spaces it holds. Each space is one consistent snapshot
// (its export reads in one transaction); spaces are read one after another.
func (b *Backups) writeBundles(ctx context.Context, db BackupStore, w io.Writer) (int, error) {
	spaces, err := db.AllSpaces(ctx)
	if err != nil {
		return 0, err
	}
	accounts, err := db.ExportAccounts(ctx)
	if err != nil {
		return 0, err
	}
	manifest, err := json.MarshalIndent(backupManifest{Format: backupFormat, FormatVersion: backupFormatVersion,
		CreatedAt: b.now().UTC(), SmritiVersion: b.Version, Engine: db.Engine(), Spaces: spaces, Accounts: accounts}, "", "  ")
	if err != nil {
		return 0, err
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	mtime := b.now().UTC().Truncate(time.Second)
	if err := tarFile(tw, manifestName, int64(len(manifest)), mtime, bytes.NewReader(manifest)); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp("", "smriti-backup-*.jsonl")
	if err != nil {
		return 0, err
	}
	defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
	for _, sp := range spaces {
		if err := writeSpaceBundle(ctx, db, sp, tmp, tw, mtime); err != nil {
			return 0, err
		}
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	return len(spaces), zw.Close()
}

// writeSpaceBundle exports a space into tmp, checks the bundle and adds it
// to the archive.
func writeSpaceBundle(ctx context.Context, db BackupStore, sp records.SpaceOwner, tmp *os.File, tw *tar.Writer, mtime time.Time) error {
	if err := tmp.Truncate(0); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	bw, err := portability.NewBundleWriter(tmp)
	if err != nil {
		return err
	}
	if err := db.ExportSpace(smriti.WithUser(ctx, sp.OwnerID), sp.ID, bw); err != nil {
		return fmt.Errorf("export space %s (%s): %w", sp.ID, sp.Name, err)
	}
	if err := bw.Close(); err != nil {
		return err
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, _, err := portability.VerifyBundle(io.LimitReader(tmp, size)); err != nil {
		return fmt.Errorf("bundle of space %s does not check: %w", sp.ID, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return tarFile(tw, "spaces/"+sp.ID.String()+".jsonl", size, mtime, io.LimitReader(tmp, size))
}

func tarFile(tw *tar.Writer, name string, size int64, mtime time.Time, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
}

// postgresDSN reports whether dsn names a PostgreSQL database, as the
// store's Open tells them apart.
func postgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}
