// Command distpack builds Smriti's release archives: for each GOOS/GOARCH
// named on the command line it builds a static binary (go build -trimpath,
// CGO_ENABLED=0) into -bin, packs it with the release files into a .tar.gz
// (a .zip for windows) in -out, and writes -out/SHA256SUMS.
//
// The archives are reproducible: every entry has the same time (-mtime, the
// commit's time), owner and mode whatever the checkout, entries are in a
// fixed order and gzip records no name or time, so one commit gives the
// same bytes on any machine with the same Go version. The build takes no
// flags from the environment that would reach the binary: GOFLAGS, GOAMD64
// and GOARM64 are set to fixed values and VCS stamping is off (the version,
// commit and date come from -ldflags). `make dist` runs it.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	gocmd := flag.String("go", "go", "the go command")
	flag.Parse()
	if flag.NArg() == 0 {
		fail("name at least one GOOS/GOARCH target")
	}
	var targets []target
	for _, arg := range flag.Args() {
		t, err := parseTarget(arg)
		if err != nil {
			fail("%v", err)
		}
		targets = append(targets, t)
	}
	for _, t := range targets {
		start := time.Now()
		args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", *ldflags, "-o", t.binPath(*bin)}
		if *tags != "" {
			args = append(args, "-tags", *tags)
		}
		cmd := exec.Command(*gocmd, append(args, *pkg)...)
		cmd.Env = buildEnv(os.Environ(), t)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fail("build %s/%s: %v", t.goos, t.goarch, err)
		}
		fmt.Fprintf(os.Stderr, "built %s/%s in %s\n", t.goos, t.goarch, time.Since(start).Round(time.Second))
	}
	var extra []string
	for _, f := range strings.Split(*files, ",") {
		if f = strings.TrimSpace(f); f != "" {
			extra = append(extra, f)
		}
	}
	if err := pack(*out, *bin, ".", *version, time.Unix(*mtime, 0), extra, targets); err != nil {
		fail("%v", err)
	}
}

// target is one GOOS/GOARCH of the release.
type target struct{ goos, goarch string }

func parseTarget(s string) (target, error) {
	goos, goarch, ok := strings.Cut(s, "/")
	if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
		return target{}, fmt.Errorf("target %q: want GOOS/GOARCH", s)
	}
	return target{goos, goarch}, nil
}

func (t target) exe() string {
	if t.goos == "windows" {
		return "smriti.exe"
	}
	return "smriti"
}

func (t target) binPath(bin string) string {
	return filepath.Join(bin, t.goos+"_"+t.goarch, t.exe())
}

// buildEnv is the environment of one target's go build: the caller's, with
// every variable that changes the binary or its recorded build settings
// replaced by a fixed value.
func buildEnv(env []string, t target) []string {
	fixed := []string{"CGO_ENABLED=0", "GOOS=" + t.goos, "GOARCH=" + t.goarch,
		"GOFLAGS=-buildvcs=false", "GOAMD64=v1", "GOARM64=v8.0"}
	var out []string
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(fixed, func(f string) bool { return strings.HasPrefix(f, key+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, fixed...)
}

// pack writes one archive per target into out, each holding the target's
// binary from bin and the files (paths relative to src, named the same way
// inside the archive), and out/SHA256SUMS listing the archives by name.
// Nothing of the files' times, owners or modes on disk, nor the time zone,
// reaches the archives.
func pack(out, bin, src, version string, when time.Time, files []string, targets []target) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	when = when.UTC()
	var sums []string
	for _, t := range targets {
		name := fmt.Sprintf("smriti_%s_%s_%s", version, t.goos, t.goarch)
		entries := []entry{{name + "/" + t.exe(), t.binPath(bin), 0o755}}
		for _, f := range files {
			entries = append(entries, entry{name + "/" + filepath.ToSlash(f), filepath.Join(src, f), 0o644})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
		var archive bytes.Buffer
		var err error
		if t.goos == "windows" {
			name += ".zip"
			err = writeZip(&archive, entries, when)
		} else {
			name += ".tar.gz"
			err = writeTarGz(&archive, entries, when)
		}
		if err != nil {
			return fmt.Errorf("pack %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, name), archive.Bytes(), 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(archive.Bytes())
		sums = append(sums, hex.EncodeToString(sum[:])+"  "+name+"\n")
	}
	sort.Strings(sums)
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644)
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
		b, err := readRegular(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(b)), ModTime: when.UTC(), Typeflag: tar.TypeReg,
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
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, e := range entries {
		b, err := readRegular(e.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: when.UTC()}
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

// readRegular reads a regular file; a directory or a missing file is an
// error naming it (a release must not lose a file silently).
func readRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(path + ": not a regular file")
	}
	return os.ReadFile(path)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "distpack: "+format+"\n", args...)
	os.Exit(1)
}
