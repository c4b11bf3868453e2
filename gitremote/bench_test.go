package gitremote_test

import (
	"path/filepath"
	"testing"

	"smriti"
	"smriti/gitremote"
	"smriti/records"
	"smriti/remote"
)

// BenchmarkOneCheckpointOnALongHistory: on a repository holding a line of
// 2,000 checkpoints, push one more and fetch it back (haves: the head
// before). Each op is one push plus one fetch, each through its own git
// fetch of the repository into the cache.
func BenchmarkOneCheckpointOnALongHistory(b *testing.B) {
	repo := filepath.Join(b.TempDir(), "r.git")
	git(b, "init", "--bare", "--quiet", repo)
	space := smriti.NewID()
	p := gitremote.New(filepath.Join(b.TempDir(), "cache")).Dial(repo, "")
	var recs []records.BundleRecord
	var parent *smriti.ID
	for i := 0; i < 2000; i++ {
		id := smriti.NewID()
		recs = append(recs, cp(space, id, parent, "main", "c"))
		parent = &id
	}
	head := hashOf(recs[len(recs)-1])
	if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Head: head}, stream(b, space, recs...)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := smriti.NewID()
		c := cp(space, id, parent, "main", "next")
		if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Expect: &head, Head: hashOf(c)}, stream(b, space, c)); err != nil {
			b.Fatal(err)
		}
		rc, err := p.Fetch(ctx, space, remote.Want{Haves: []string{head}, Since: -1})
		if err != nil {
			b.Fatal(err)
		}
		rc.Close()
		head, parent = hashOf(c), &id
	}
}
