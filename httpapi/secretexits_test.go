package httpapi_test

import (
	"strings"
	"testing"

	"smriti"
	"smriti/wire"
)

// TestNothingLeavesWithASecret: a key stored before redaction existed
// (written here straight to the store) stops every exit of its space — an
// export, a clone (the other server's export), a fetch answer, a push —
// each refused with the command that finds it, before anything is sent.
// Once purged, the space goes out again, and the purged checkpoint
// (hash version 3) verifies on the other side, with its purged field
// reported there too.
func TestNothingLeavesWithASecret(t *testing.T) {
	team, laptop, third := newEnv(t), newEnv(t), newEnv(t)
	sp, err := team.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("plans")})
	if err != nil {
		t.Fatal(err)
	}
	space := sp.ID
	commitState(t, team, space, "start", []string{"Use PostgreSQL"}, nil)
	clone(t, laptop, team, space)

	key := fakeKey(48)
	scan := "smriti secrets scan --space " + space.String()
	refused := func(what, exit string, err error) {
		t.Helper()
		if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), exit+" refused") ||
			!strings.Contains(err.Error(), scan) || !strings.Contains(err.Error(), "decisions[1], rule github-pat") || strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v; want a 422 naming the secret's place and %q", what, err, scan)
		}
	}
	// The laptop's own old secret stops its push.
	if _, err := laptop.store.CommitCheckpoint(bg, smriti.CheckpointCommit{SpaceID: space,
		Content: smriti.Content{Message: "Laptop", Decisions: []string{"Use PostgreSQL", "key " + key}}}); err != nil {
		t.Fatal(err)
	}
	_, err = laptop.c.Push(bg, space, "origin", wire.PushRequest{})
	refused("push", "push", err)

	old, err := team.store.CommitCheckpoint(bg, smriti.CheckpointCommit{SpaceID: space,
		Content: smriti.Content{Message: "Old", Decisions: []string{"Use PostgreSQL", "token " + key}}})
	if err != nil {
		t.Fatal(err)
	}
	status, body := team.raw(t, "GET", "/api/v5/spaces/"+space.String()+"/export", "")
	if status != 422 || !strings.Contains(body, "export refused") || !strings.Contains(body, scan) || strings.Contains(body, key) {
		t.Errorf("export answered %d %s", status, body)
	}
	id := space.String()
	_, err = third.c.Clone(bg, wire.CloneRequest{URL: team.url, SpaceID: &id})
	refused("clone", "export", err)
	_, err = laptop.c.Fetch(bg, space, "origin")
	refused("fetch", "fetch answer", err)

	// Purged on the team server: the space goes out again, and the purged
	// checkpoint verifies on the laptop after a fetch.
	p, err := team.c.PurgeSecrets(bg, space, "github-pat", "", false)
	if err != nil || p.Values != 1 {
		t.Fatalf("purge: %+v, %v", p, err)
	}
	if status, body := team.raw(t, "GET", "/api/v5/spaces/"+space.String()+"/export", ""); status != 200 || strings.Contains(body, key) {
		t.Fatalf("export after the purge: %d", status)
	}
	if _, err := laptop.c.PurgeSecrets(bg, space, "github-pat", "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := laptop.c.Fetch(bg, space, "origin"); err != nil {
		t.Fatalf("fetch after the purge: %v", err)
	}
	cl, err := third.c.Clone(bg, wire.CloneRequest{URL: team.url, SpaceID: &id})
	if err != nil || cl.Repo.ID != space {
		t.Fatalf("clone after the purge: %+v, %v", cl, err)
	}
	v, err := third.c.Verify(bg, old.ID)
	if err != nil || !v.OK || len(v.Purged) != 2 {
		t.Fatalf("the cloned purged checkpoint: %+v, %v", v, err)
	}
	for _, pf := range v.Purged {
		if !pf.Proven || pf.CheckpointID != old.ID || pf.Rule != "github-pat" || pf.By != smriti.LocalUsername {
			t.Errorf("purged field on the clone: %+v", pf)
		}
	}
}
