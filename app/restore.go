package app

import (
	"archive/tar"
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

	"smriti"
	"smriti/portability"
	"smriti/records"
)

// Restore writes the backup in file into the empty store at dsn and returns
// the verification of the restored store (every checkpoint hash
// recomputed). An SQLite target must not exist yet (restoring an SQLite
// backup copies the file); any other target may exist but must hold no
// space, session or user. An SQLite backup restores into PostgreSQL
// through bundles; a bundle archive restores into either engine.
func (b *Backups) Restore(ctx context.Context, file, dsn string) (*records.StoreVerification, error) {
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
	case bytes.Equal(head, sqliteMagic) && !postgresDSN(dsn):
		return b.restoreSQLiteFile(ctx, file, dsn)
	case bytes.Equal(head, sqliteMagic):
		return b.restoreSQLiteIntoPostgres(ctx, file, dsn)
	case head[0] == 0x1f && head[1] == 0x8b:
		db, err := b.openEmpty(ctx, dsn)
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
func (b *Backups) openEmpty(ctx context.Context, dsn string) (BackupStore, error) {
	db, err := b.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", b.redact(dsn), err)
	}
	c, err := db.Contents(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if !c.Empty() {
		db.Close()
		return nil, fmt.Errorf("%s is not empty (%d space(s), %d session(s), %d user(s)): restore into a new database", b.redact(dsn), c.Spaces, c.Sessions, c.Users)
	}
	return db, nil
}

// restoreSQLiteFile checks the backup, copies it to target.partial, syncs
// and renames it, then opens it (which applies any migration the backup
// predates) and verifies it.
func (b *Backups) restoreSQLiteFile(ctx context.Context, file, dsn string) (*records.StoreVerification, error) {
	target := strings.TrimPrefix(dsn, "sqlite:")
	for _, p := range []string{target, target + "-wal", target + "-shm"} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s already exists: restore an SQLite backup to a path that does not exist yet (move the old store aside first)", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := b.CheckSQLiteFile(ctx, file); err != nil {
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
	db, err := b.Open(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("open restored store: %w", err)
	}
	defer db.Close()
	return db.VerifyAll(ctx)
}

// restoreSQLiteIntoPostgres opens a copy of an SQLite backup (opening
// migrates it, and the backup itself stays untouched), writes its bundle
// archive to a temporary file and restores that.
func (b *Backups) restoreSQLiteIntoPostgres(ctx context.Context, file, dsn string) (*records.StoreVerification, error) {
	dir, err := os.MkdirTemp("", "smriti-restore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "backup.db")
	if _, err := b.restoreSQLiteFile(ctx, file, copyPath); err != nil {
		return nil, err
	}
	src, err := b.Open(ctx, copyPath)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	archive := filepath.Join(dir, "backup.tar.gz")
	if _, err := writeToNewFile(archive, func(w io.Writer) (int, error) { return b.writeBundles(ctx, src, w) }); err != nil {
		return nil, err
	}
	db, err := b.openEmpty(ctx, dsn)
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
func restoreBundles(ctx context.Context, db BackupStore, r io.Reader) error {
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
		m.Accounts = &records.Accounts{}
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
		if err := restoreSpace(ctx, db, owners, hdr, tr, tmp); err != nil {
			return err
		}
		restored++
	}
	if restored != len(m.Spaces) {
		return fmt.Errorf("bundle archive holds %d of the %d spaces its manifest lists", restored, len(m.Spaces))
	}
	return db.RestoreMembers(ctx, m.Accounts.Members)
}

// restoreSpace imports the archive's entry hdr, a space the manifest
// lists, under its owner with its ids kept, through tmp.
func restoreSpace(ctx context.Context, db BackupStore, owners map[smriti.ID]smriti.ID, hdr *tar.Header, tr io.Reader, tmp *os.File) error {
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
	return nil
}
