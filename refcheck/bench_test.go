package refcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/gitcli"
)

// benchRepo is a generated repository of 10,000 Go files (20 directories
// of 500) and 300 items citing 500 spans of them (the first 200 items one
// ref each, the last 100 three), written at HEAD; stale of the refs' files
// are then edited and committed.
func benchRepo(b *testing.B, stale int) (string, []smriti.Item) {
	b.Helper()
	r := newRepo(b)
	for d := 0; d < 20; d++ {
		dir := filepath.Join(r.dir, fmt.Sprintf("pkg%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 500; f++ {
			src := fmt.Sprintf("package pkg%02d\n\n// F%d does one thing.\nfunc F%d(x int) int {\n\ty := x * %d\n\treturn y + 1\n}\n\nvar V%d = %d\n", d, f, f, f, f, f)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(src), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	r.commit("generated")
	ck, err := Open(context.Background(), gitcli.New(), r.dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ck.Close()
	var items []smriti.Item
	n := 0
	for i := 0; i < 300; i++ {
		it := smriti.Item{ID: fmt.Sprintf("d-%06x", i), Kind: smriti.KindDecision, Text: fmt.Sprintf("decision %d", i), Status: smriti.ItemOpen}
		refs := 1
		if i >= 200 {
			refs = 3
		}
		for j := 0; j < refs; j++ {
			spec := fmt.Sprintf("pkg%02d/f%03d.go:4-7", n%20, (n*7)%500)
			ref, err := ck.Ref(r.dir, spec)
			if err != nil {
				b.Fatal(err)
			}
			it.Refs = append(it.Refs, ref)
			n++
		}
		items = append(items, it)
	}
	if n != 500 {
		b.Fatalf("%d refs, want 500", n)
	}
	for i := 0; i < stale; i++ {
		ref := items[i].Refs[0]
		if err := os.WriteFile(filepath.Join(r.dir, ref.Path), []byte("package x\n\nfunc Edited() {}\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if stale > 0 {
		r.commit("edit")
	}
	return r.dir, items
}

// BenchmarkCheck500Refs is the check at use: opening the work tree and
// classifying 300 items' 500 refs in a repository of 10,000 files (target
// at most 50 ms), all fresh, and with 5 refs changed (git is asked about
// those).
func BenchmarkCheck500Refs(b *testing.B) {
	for _, stale := range []int{0, 5} {
		b.Run(fmt.Sprintf("stale=%d", stale), func(b *testing.B) {
			dir, items := benchRepo(b, stale)
			g := gitcli.New()
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				_, checks, err := CheckIn(ctx, g, []string{dir}, items)
				if err != nil {
					b.Fatal(err)
				}
				bad := 0
				for _, c := range checks {
					if c.Status != "fresh" {
						bad++
					}
				}
				if len(checks) != 300 || bad != stale {
					b.Fatalf("%d items checked, %d stale; want 300, %d", len(checks), bad, stale)
				}
			}
		})
	}
}
