package portability

import (
	"bytes"
	"io"
	"testing"

	"smriti"
)

// repeatReader gives n bytes of b, then io.EOF, a chunk of at most 64 KiB
// a read.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(len(p), r.n, 64<<10)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= len(p)
	return len(p), nil
}

func TestLineLimitCountsRunsAcrossReads(t *testing.T) {
	cases := []struct {
		name string
		r    io.Reader
		ok   bool
	}{
		{"a line of the limit", io.MultiReader(&repeatReader{'a', maxBundleLine}, bytes.NewReader([]byte("\nb\n"))), true},
		{"a line one byte over", io.MultiReader(&repeatReader{'a', maxBundleLine + 1}, bytes.NewReader([]byte("\n"))), false},
		{"over, ended by a newline in the chunk", io.MultiReader(bytes.NewReader([]byte("x\nyy")), &repeatReader{'a', maxBundleLine - 2},
			bytes.NewReader([]byte("b\nc"))), false},
		{"the limit, after a newline in the chunk", io.MultiReader(bytes.NewReader([]byte("x\nyy")), &repeatReader{'a', maxBundleLine - 2},
			bytes.NewReader([]byte("\nc"))), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := io.Copy(io.Discard, &lineLimit{r: c.r})
			if c.ok && err != nil {
				t.Fatalf("err = %v; want none", err)
			}
			if !c.ok && smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
				t.Fatalf("err = %v; want EUNPROCESSABLE", err)
			}
		})
	}
}
