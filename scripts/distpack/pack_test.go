package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPackIsReproducible packs a linux and a windows release from two small
// fake binaries twice: the second time into another directory, in another
// time zone, with every input's time on disk changed and its permissions
// narrowed. Both runs must write the same files with the same bytes, and
// SHA256SUMS must name each archive with its digest.
func TestPackIsReproducible(t *testing.T) {
	dir := t.TempDir()
	bin, src := filepath.Join(dir, "bin"), filepath.Join(dir, "src")
	write := func(path, body string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	inputs := map[string]string{
		filepath.Join(bin, "linux_amd64", "smriti"):       "\x7fELF linux amd64 binary",
		filepath.Join(bin, "windows_arm64", "smriti.exe"): "MZ windows arm64 binary",
		filepath.Join(src, "README.md"):                   "# Smriti\n",
		filepath.Join(src, "LICENSE"):                     "Apache License\n",
		filepath.Join(src, "deploy", "smriti.service"):    "[Unit]\n",
	}
	for path, body := range inputs {
		write(path, body, 0o644)
	}
	os.Chmod(filepath.Join(bin, "linux_amd64", "smriti"), 0o755)
	files := []string{"README.md", "LICENSE", "deploy/smriti.service"}
	targets := []target{{"linux", "amd64"}, {"windows", "arm64"}}
	when := time.Unix(1796167557, 0) // 2026-12-01T23:25:57Z

	out1, out2 := filepath.Join(dir, "out1"), filepath.Join(dir, "elsewhere", "out2")
	if err := pack(out1, bin, src, "v1.2.3", when, files, targets); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(36 * time.Hour)
	for path := range inputs {
		os.Chtimes(path, later, later)
		os.Chmod(path, 0o600)
	}
	local := time.Local
	time.Local = time.FixedZone("IST", 5*3600+1800)
	defer func() { time.Local = local }()
	if err := pack(out2, bin, src, "v1.2.3", when.In(time.Local), files, targets); err != nil {
		t.Fatal(err)
	}

	names := []string{"SHA256SUMS", "smriti_v1.2.3_linux_amd64.tar.gz", "smriti_v1.2.3_windows_arm64.zip"}
	if got := listDir(t, out1); !slices.Equal(got, names) {
		t.Fatalf("first run wrote %q, want %q", got, names)
	}
	if got := listDir(t, out2); !slices.Equal(got, names) {
		t.Fatalf("second run wrote %q, want %q", got, names)
	}
	body := map[string][]byte{}
	for _, n := range names {
		a, _ := os.ReadFile(filepath.Join(out1, n))
		b, _ := os.ReadFile(filepath.Join(out2, n))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs between the two runs (%d and %d bytes)", n, len(a), len(b))
		}
		body[n] = a
	}
	var wantSums strings.Builder
	for _, n := range names[1:] {
		sum := sha256.Sum256(body[n])
		wantSums.WriteString(hex.EncodeToString(sum[:]) + "  " + n + "\n")
	}
	if got := string(body["SHA256SUMS"]); got != wantSums.String() {
		t.Fatalf("SHA256SUMS = %q, want %q", got, wantSums.String())
	}

	type member struct {
		name string
		mode os.FileMode
		body string
	}
	tgz := []member{
		{"smriti_v1.2.3_linux_amd64/LICENSE", 0o644, "Apache License\n"},
		{"smriti_v1.2.3_linux_amd64/README.md", 0o644, "# Smriti\n"},
		{"smriti_v1.2.3_linux_amd64/deploy/smriti.service", 0o644, "[Unit]\n"},
		{"smriti_v1.2.3_linux_amd64/smriti", 0o755, "\x7fELF linux amd64 binary"},
	}
	zr, err := gzip.NewReader(bytes.NewReader(body[names[1]]))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || zr.Comment != "" || !zr.ModTime.IsZero() {
		t.Fatalf("gzip header records name %q, comment %q, time %v", zr.Name, zr.Comment, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var got []member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || !h.ModTime.Equal(when) || h.Uid != 0 || h.Gid != 0 || h.Uname != "root" || h.Gname != "root" {
			t.Fatalf("%s: type %c time %v uid %d gid %d owner %s:%s", h.Name, h.Typeflag, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		b, _ := io.ReadAll(tr)
		got = append(got, member{h.Name, os.FileMode(h.Mode), string(b)})
	}
	if !slices.Equal(got, tgz) {
		t.Fatalf("tar members = %+v, want %+v", got, tgz)
	}

	zipWant := []member{
		{"smriti_v1.2.3_windows_arm64/LICENSE", 0o644, "Apache License\n"},
		{"smriti_v1.2.3_windows_arm64/README.md", 0o644, "# Smriti\n"},
		{"smriti_v1.2.3_windows_arm64/deploy/smriti.service", 0o644, "[Unit]\n"},
		{"smriti_v1.2.3_windows_arm64/smriti.exe", 0o755, "MZ windows arm64 binary"},
	}
	zf, err := zip.NewReader(bytes.NewReader(body[names[2]]), int64(len(body[names[2]])))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range zf.File {
		if !f.Modified.Equal(when) || f.Method != zip.Deflate {
			t.Fatalf("%s: time %v method %d", f.Name, f.Modified, f.Method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, member{f.Name, f.Mode(), string(b)})
	}
	if !slices.Equal(got, zipWant) {
		t.Fatalf("zip members = %+v, want %+v", got, zipWant)
	}
}

// TestPackMissingFile fails naming the file a release would have lost.
func TestPackMissingFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin", "darwin_arm64"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "darwin_arm64", "smriti"), []byte("binary"), 0o755)
	err := pack(filepath.Join(dir, "out"), filepath.Join(dir, "bin"), dir, "v1", time.Unix(0, 0),
		[]string{"CHANGELOG.md"}, []target{{"darwin", "arm64"}})
	want := "pack smriti_v1_darwin_arm64.tar.gz: stat " + filepath.Join(dir, "CHANGELOG.md") + ": no such file or directory"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestParseTarget(t *testing.T) {
	if got, err := parseTarget("windows/arm64"); err != nil || got != (target{"windows", "arm64"}) {
		t.Fatalf("parseTarget(windows/arm64) = %v, %v", got, err)
	}
	for _, bad := range []string{"linux", "linux/", "/amd64", "linux/amd64/v3"} {
		if _, err := parseTarget(bad); err == nil || err.Error() != `target "`+bad+`": want GOOS/GOARCH` {
			t.Fatalf("parseTarget(%q) err = %v", bad, err)
		}
	}
}

// TestBuildEnvFixesWhatReachesTheBinary: a caller's GOFLAGS, GOAMD64 or
// cgo setting cannot change the release binary; the rest passes through.
func TestBuildEnvFixesWhatReachesTheBinary(t *testing.T) {
	env := buildEnv([]string{"HOME=/h", "GOFLAGS=-buildvcs=true", "GOAMD64=v3", "CGO_ENABLED=1"}, target{"darwin", "amd64"})
	want := []string{"HOME=/h", "CGO_ENABLED=0", "GOOS=darwin", "GOARCH=amd64", "GOFLAGS=-buildvcs=false", "GOAMD64=v1", "GOARM64=v8.0"}
	if !slices.Equal(env, want) {
		t.Fatalf("buildEnv = %q, want %q", env, want)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}
