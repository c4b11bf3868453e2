package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestArchivesAreReproducible packs the same files twice, the second time
// after changing their times on disk, and finds the same bytes; the entries
// carry the given time, root ownership and the given modes.
func TestArchivesAreReproducible(t *testing.T) {
	dir := t.TempDir()
	bin, readme := filepath.Join(dir, "smriti"), filepath.Join(dir, "README.md")
	os.WriteFile(bin, []byte("\x7fELF not really"), 0o755)
	os.WriteFile(readme, []byte("# Smriti\n"), 0o644)
	entries := []entry{{"smriti_v1_linux_amd64/README.md", readme, 0o644}, {"smriti_v1_linux_amd64/smriti", bin, 0o755}}
	when := time.Unix(1796034671, 0).UTC()
	pack := func() ([]byte, []byte) {
		var tgz, z bytes.Buffer
		if err := writeTarGz(&tgz, entries, when); err != nil {
			t.Fatal(err)
		}
		if err := writeZip(&z, entries, when); err != nil {
			t.Fatal(err)
		}
		return tgz.Bytes(), z.Bytes()
	}
	tgz1, zip1 := pack()
	later := time.Now().Add(time.Hour)
	os.Chtimes(bin, later, later)
	os.Chtimes(readme, later, later)
	tgz2, zip2 := pack()
	if !bytes.Equal(tgz1, tgz2) || !bytes.Equal(zip1, zip2) {
		t.Fatal("packing the same files twice gave different archives")
	}

	zr, err := gzip.NewReader(bytes.NewReader(tgz1))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Fatalf("gzip header records name %q, time %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(when) || h.Uid != 0 || h.Gid != 0 || h.Uname != "root" {
			t.Fatalf("%s: time %v uid %d gid %d uname %q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname)
		}
		if h.Name == "smriti_v1_linux_amd64/smriti" && h.Mode != 0o755 {
			t.Fatalf("binary mode %o, want 755", h.Mode)
		}
	}
	if len(names) != 2 || names[0] != "smriti_v1_linux_amd64/README.md" {
		t.Fatalf("tar entries = %q", names)
	}
	zf, err := zip.NewReader(bytes.NewReader(zip1), int64(len(zip1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zf.File) != 2 || !zf.File[1].Modified.Equal(when) || zf.File[1].Mode().Perm() != 0o755 {
		t.Fatalf("zip entries = %+v", zf.File)
	}
}
