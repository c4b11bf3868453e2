package httpapi_test

import (
	"strings"
	"testing"

	"smriti/wire"
)

// TestSyncAheadCountsAMergingPull: after a pull that merges, this copy is
// ahead by its own checkpoint and the merge, although the fetched
// checkpoint was logged here after its own (the pull stored it).
func TestSyncAheadCountsAMergingPull(t *testing.T) {
	team, a := newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("notes")})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, team, sp.ID, "one", []string{"First"}, nil)
	clone(t, a, team, sp.ID)
	commitState(t, team, sp.ID, "team", []string{"First", "From the team"}, nil)
	commitState(t, a, sp.ID, "laptop", []string{"First", "From the laptop"}, nil)
	pull, err := a.c.Pull(bg, sp.ID, "origin", wire.PullRequest{})
	if err != nil || pull.Outcome != "merged" {
		t.Fatalf("pull = %+v, %v; want merged", pull, err)
	}
	r, err := a.c.Remote(bg, sp.ID, "origin")
	if err != nil || len(r.Divergence) != 1 || r.Divergence[0].Ahead != 2 || r.Divergence[0].Behind != 0 ||
		!strings.HasPrefix(r.Divergence[0].Description, "main is 2 ahead of origin/main (fetched ") {
		t.Fatalf("after the merging pull the remote = %+v, %v; want main 2 ahead (the laptop's checkpoint and the merge)", r, err)
	}
	if _, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{}); err != nil {
		t.Fatal(err)
	}
	r, err = a.c.Remote(bg, sp.ID, "origin")
	if err != nil || len(r.Divergence) != 1 || r.Divergence[0].Ahead != 0 || r.Divergence[0].Behind != 0 {
		t.Fatalf("after the push the remote = %+v, %v; want up to date", r, err)
	}
}
