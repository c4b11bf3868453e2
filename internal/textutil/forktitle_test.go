package textutil

import (
	"testing"
)

func TestForkTitle(t *testing.T) {
	for _, tc := range []struct{ name, branch, cp, want string }{
		{"NamedAfterTheBranch", "try-postgres", "Pick a database", "Try postgres"},
		{"GeneratedBranchNamedAfterTheCheckpoint", "fork-5d356ac", "Go by train", "Branch of “Go by train”"},
		{"GeneratedBranchWithSuffix", "fork-5d356ac-2", "Go by train", "Branch of “Go by train”"},
		{"NothingToNameItAfter", "fork-5d356ac", "", "New branch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ForkTitle(tc.branch, tc.cp, 60); got != tc.want {
				t.Fatalf("ForkTitle(%q, %q) = %q, want %q", tc.branch, tc.cp, got, tc.want)
			}
		})
	}
}
