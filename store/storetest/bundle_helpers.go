package storetest

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

// BundleLines reads a gzipped bundle as its JSON lines.
func BundleLines(t *testing.T, b []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
}

// BundleOf writes JSON lines as a gzipped bundle.
func BundleOf(t *testing.T, lines []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, strings.Join(lines, "\n")+"\n")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
