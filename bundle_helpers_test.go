package smriti_test

import (
	"compress/gzip"
	"io"
	"strings"
)

func gzipLines(w io.Writer, lines []string) error {
	zw := gzip.NewWriter(w)
	if _, err := io.WriteString(zw, strings.Join(lines, "\n")+"\n"); err != nil {
		return err
	}
	return zw.Close()
}
