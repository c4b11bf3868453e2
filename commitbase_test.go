package smriti

import "testing"

func TestCommitBase(t *testing.T) {
	head, source := NewID(), NewID()
	fork := &Session{BranchName: "try-x", ForkedFromCheckpointID: &source}
	seeded := &Session{BranchName: MainBranch, ForkedFromCheckpointID: &source}
	for _, c := range []struct {
		name       string
		se         *Session
		head       *ID
		want       *ID
		wantBranch string
	}{
		{"NoSessionBuildsOnMainsHead", nil, &head, &head, MainBranch},
		{"NoSessionOnEmptyMainBuildsOnNothing", nil, nil, nil, MainBranch},
		{"ForkBuildsOnItsBranchHead", fork, &head, &head, "try-x"},
		{"ForkWithNoCheckpointBuildsOnItsSource", fork, nil, &source, "try-x"},
		{"MainSessionNeverBuildsOnASource", seeded, nil, nil, MainBranch},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.se.CommitBase(c.head)
			if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
				t.Fatalf("CommitBase = %v, want %v", got, c.want)
			}
			if b := c.se.CommitBranch(); b != c.wantBranch {
				t.Fatalf("CommitBranch = %q, want %q", b, c.wantBranch)
			}
		})
	}
}
