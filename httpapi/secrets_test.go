package httpapi_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"smriti"
	"smriti/secretlog"
	"smriti/secrets"
	"smriti/store/storetest"
	"smriti/wire"
)

// fakeKey is a random, fake GitHub token built at run time (no file holds
// one that looks real).
func fakeKey(seed uint64) string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, seed))
	b := []byte("ghp_")
	for range 36 {
		b = append(b, set[r.IntN(len(set))])
	}
	return string(b)
}

// TestSecretsPastedIntoTheAPIAreNeverStored: a key in a chat message, a
// checkpoint saved through the API (the CLI's and MCP's path) and a note is
// replaced by a marker before it is stored, and each answer says so.
func TestSecretsPastedIntoTheAPIAreNeverStored(t *testing.T) {
	e := newEnv(t)
	bg := context.Background()
	key := fakeKey(46)
	redacted := []smriti.Redaction{{Field: "message", Rule: "github-pat", Fingerprint: secrets.Fingerprint(key)}}

	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Secrets"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	res := storetest.Get(e.c.Send(bg, wire.SendRequest{SessionID: new(se.ID.String()), Message: new("push fails with GH_TOKEN=" + key), UseMock: true}, "")).Must(t)
	if !reflect.DeepEqual(res.Redactions, redacted) {
		t.Errorf("send redactions %v, want %v", res.Redactions, redacted)
	}

	c := storetest.Get(e.c.CommitToSpace(bg, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{
		Message: new("Token " + key), Decisions: []string{"rotate it"}}})).Must(t)
	if c.Message != "Token [redacted: github-pat]" || !reflect.DeepEqual(c.Redactions, redacted) {
		t.Errorf("commit answered message %q, redactions %v", c.Message, c.Redactions)
	}
	n := storetest.Get(e.c.AddNote(bg, c.ID, "used "+key, "", "")).Must(t)
	if n.Text != "used [redacted: github-pat]" || !reflect.DeepEqual(n.Redactions, []smriti.Redaction{{Field: "text", Rule: "github-pat", Fingerprint: secrets.Fingerprint(key)}}) {
		t.Errorf("note answered %q, redactions %v", n.Text, n.Redactions)
	}

	// Nothing the server stored holds the key: not the turns, not the
	// checkpoint as read back, not its note.
	status, body := e.raw(t, "GET", "/api/v2/commits/"+c.ID.String()+"?items=true", "")
	if status != 200 || strings.Contains(body, key) || !strings.Contains(body, "[redacted: github-pat]") {
		t.Errorf("checkpoint read back (%d) holds the key or no marker: %s", status, body)
	}
	if strings.Contains(body, `"redactions"`) {
		t.Error("a read of a checkpoint lists redactions; only the answer to the write does")
	}
	status, body = e.raw(t, "GET", "/api/v4/chat/sessions/"+se.ID.String()+"/turns", "")
	if status != 200 || strings.Contains(body, key) {
		t.Errorf("turns (%d) hold the key: %s", status, body)
	}
}

// TestSecretsScanFindsWhatWasStoredBefore: a key stored before redaction
// existed (written here straight to the store) is found by the scan, by
// kind, id, field and rule, through the real server and client.
func TestSecretsScanFindsWhatWasStoredBefore(t *testing.T) {
	e := newEnv(t)
	bg := context.Background()
	key := fakeKey(47)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Old"), Description: new("")})).Must(t)
	c := storetest.Get(e.store.CommitCheckpoint(bg, smriti.CheckpointCommit{SpaceID: sp.ID,
		Content: smriti.Content{Message: "Old", Decisions: []string{"keep it", "token " + key}}})).Must(t)
	clean := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Clean"), Description: new("")})).Must(t)

	var got []secretlog.StoredSecret
	read := storetest.Get(e.c.ScanSecrets(bg, nil, func(f secretlog.StoredSecret) { got = append(got, f) })).Must(t)
	want := []secretlog.StoredSecret{{SpaceID: sp.ID, Kind: "checkpoint", ID: c.ID, Field: "decisions[1]", Rule: "github-pat", Fingerprint: got0(got).Fingerprint}}
	if !reflect.DeepEqual(got, want) || got0(got).Fingerprint == "" {
		t.Errorf("findings %+v, want %+v", got, want)
	}
	if read.Spaces != 2 || read.Checkpoints != 1 || read.Found != 1 {
		t.Errorf("scan read %+v, want 2 spaces, 1 checkpoint, 1 found", *read)
	}
	got = nil
	read = storetest.Get(e.c.ScanSecrets(bg, &clean.ID, func(f secretlog.StoredSecret) { got = append(got, f) })).Must(t)
	if len(got) != 0 || read.Spaces != 1 || read.Found != 0 {
		t.Errorf("scan of the clean space: %+v, %+v", got, *read)
	}
}

func got0(fs []secretlog.StoredSecret) secretlog.StoredSecret {
	if len(fs) == 0 {
		return secretlog.StoredSecret{}
	}
	return fs[0]
}
