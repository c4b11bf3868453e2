package store

import (
	"testing"
	"time"

	"smriti"
)

// A checkpoint that arrives by sync after a purge on the sending side
// carries the digests of its purged texts: a version 3 one verifies and a
// forged text does not; an older version's purged checkpoint is taken as
// sent (its hash covers the text that is gone).
func TestSyncVerifiesPurgedVersion3Checkpoints(t *testing.T) {
	c := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: smriti.NewID(), BranchName: "main", AuthorType: smriti.AuthorUser,
		CreatedAt: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC), HashVersion: smriti.CurrentHashVersion,
		Content: smriti.Content{Message: "Deploy", Decisions: []string{"token ghp_secretvalue"}}, Items: []smriti.Item{}}
	c.Hash = c.ComputeHash("", "")
	c.Decisions[0] = "token [redacted: github-pat]"
	noParents := func(smriti.ID) (string, bool, error) { return "", false, nil }
	if err := verifySyncCheckpoint(c, noParents); err == nil {
		t.Fatal("a rewritten text without its digest verified")
	}
	c.Purged = []smriti.PurgedField{{Field: "decisions[0]", Digest: smriti.TextDigest("token ghp_secretvalue"), By: "ana", Rule: "github-pat"}}
	if err := verifySyncCheckpoint(c, noParents); err != nil {
		t.Fatalf("a purged version 3 checkpoint: %v", err)
	}
	c.Summary = "forged"
	if err := verifySyncCheckpoint(c, noParents); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("a forged text beside a purged one: %v", err)
	}
	c.Summary, c.HashVersion = "", 2
	if err := verifySyncCheckpoint(c, noParents); err != nil {
		t.Fatalf("a purged version 2 checkpoint is taken as sent: %v", err)
	}
}
