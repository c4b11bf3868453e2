// Command distpack builds Smriti's release archives: for each GOOS/GOARCH
// named on the command line it builds a static binary (go build -trimpath,
// CGO_ENABLED=0) into -bin, packs it with the release files into a .tar.gz
// (a .zip for windows) in -out, and writes -out/SHA256SUMS.
//
// The archives are reproducible: every entry has the same time (-mtime, the
// commit's time), owner and mode whatever the checkout, entries are in a
// fixed order and gzip records no name or time, so one commit gives the
// same bytes on any machine with the same Go version. `make dist` runs it.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "dist", "directory for the archives and SHA256SUMS")
	bin := flag.String("bin", "bin/dist", "directory for the binaries (kept, so an unchanged target is not relinked)")
	version := flag.String("version", "dev", "version in the archive names")
	mtime := flag.Int64("mtime", 0, "time of every archive entry, in seconds since 1970 (the commit time)")
	ldflags := flag.String("ldflags", "", "go build -ldflags")
	tags := flag.String("tags", "", "go build -tags")
	files := flag.String("files", "README.md,LICENSE,CHANGELOG.md", "comma-separated files packed beside the binary")
	pkg := flag.String("pkg", "./cmd/smriti", "package to build")
	flag.Parse()
	if flag.NArg() == 0 {
		fail("name at least one GOOS/GOARCH target")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail("%v", err)
	}
	when := time.Unix(*mtime, 0).UTC()
	extra := strings.Split(*files, ",")
	var sums []string
	for _, target := range flag.Args() {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok {
			fail("target %q: want GOOS/GOARCH", target)
		}
		exe := "smriti"
		if goos == "windows" {
			exe += ".exe"
		}
		binPath := filepath.Join(*bin, goos+"_"+goarch, exe)
		args := []string{"build", "-trimpath", "-ldflags", *ldflags, "-o", binPath}
		if *tags != "" {
			args = append(args, "-tags", *tags)
		}
		cmd := exec.Command("go", append(args, *pkg)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		fmt.Fprintf(os.Stderr, "build %s\n", target)
		if err := cmd.Run(); err != nil {
			fail("build %s: %v", target, err)
		}
		name := fmt.Sprintf("smriti_%s_%s_%s", *version, goos, goarch)
		entries := []entry{{name + "/" + exe, binPath, 0o755}}
		for _, f := range extra {
			if f = strings.TrimSpace(f); f != "" {
				entries = append(entries, entry{name + "/" + filepath.ToSlash(f), f, 0o644})
			}
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
		var archive bytes.Buffer
		var err error
		if goos == "windows" {
			name += ".zip"
			err = writeZip(&archive, entries, when)
		} else {
			name += ".tar.gz"
			err = writeTarGz(&archive, entries, when)
		}
		if err != nil {
			fail("pack %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(*out, name), archive.Bytes(), 0o644); err != nil {
			fail("%v", err)
		}
		sum := sha256.Sum256(archive.Bytes())
		sums = append(sums, hex.EncodeToString(sum[:])+"  "+name+"\n")
	}
	sort.Strings(sums)
	if err := os.WriteFile(filepath.Join(*out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644); err != nil {
		fail("%v", err)
	}
}

// entry is one file of an archive: its name inside, where it is read from,
// and its mode.
type entry struct {
	name, src string
	mode      int64
}

func writeTarGz(w io.Writer, entries []entry, when time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		b, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(b)), ModTime: when, Typeflag: tar.TypeReg,
			Uname: "root", Gname: "root", Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeZip(w io.Writer, entries []entry, when time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		b, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: when}
		hdr.SetMode(os.FileMode(e.mode))
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "distpack: "+format+"\n", args...)
	os.Exit(1)
}
