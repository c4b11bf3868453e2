package records

import (
	"reflect"
	"testing"
	"time"

	"smriti"
)

// TestCheckpointRoundTrip: a checkpoint turned into its record and back is
// the same checkpoint (its notes ride in the record, not back), in the
// space the import names.
func TestCheckpointRoundTrip(t *testing.T) {
	space, parent := smriti.NewID(), smriti.NewID()
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	c := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: smriti.NewID(), Hash: "abc", ParentID: &parent, BranchName: "main",
		AuthorType: "user", Content: smriti.Content{Message: "m", Objective: "o", Summary: "s", Decisions: []string{"d"},
			Assumptions: []string{}, Tasks: []smriti.Task{}, OpenQuestions: []string{}, Entities: []string{}, Artifacts: []smriti.Artifact{}},
		ContextBlob: map[string]any{}, Metadata: map[string]any{"k": "v"}, HashVersion: 2, CreatedAt: at,
		Items: []smriti.Item{{ID: "i1", Kind: smriti.KindDecision, Text: "d", Status: "open", Supersedes: []string{}}},
		Notes: []*smriti.Note{{ID: smriti.NewID(), Author: "ana", Text: "n", Kind: "comment", CreatedAt: at}}}
	b := BundleCheckpointOf(c)
	if len(b.Notes) != 1 || b.Notes[0].Text != "n" || b.Notes[0].Author != "ana" {
		t.Fatalf("notes = %+v, want the one note", b.Notes)
	}
	got := b.CheckpointOf(space)
	want := *c
	want.SpaceID, want.Notes = space, nil
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, &want)
	}
	// A version 1 record carries no items and gets none back.
	c.HashVersion, c.Items = 1, nil
	if b := BundleCheckpointOf(c); b.HashVersion != 0 || b.Items != nil || b.CheckpointOf(space).Items != nil {
		t.Fatalf("version 1: record %d items %v", b.HashVersion, b.Items)
	}
}

func TestValidAgentFormat(t *testing.T) {
	for f, want := range map[string]bool{"claude-code": true, "codex": true, "chatgpt": false, "": false, "Codex": false} {
		if got := ValidAgentFormat(f); got != want {
			t.Errorf("ValidAgentFormat(%q) = %v, want %v", f, got, want)
		}
	}
}

// TestConversationContentHash: the hash names the content, so the same
// conversation hashes the same and any change to a turn changes it.
func TestConversationContentHash(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	c := &Conversation{Source: "chatgpt", Title: "t", Turns: []ConversationTurn{{Role: "user", Content: "hi", CreatedAt: &at}}}
	h := c.ContentHash()
	if len(h) != 64 || h != (&Conversation{Source: "chatgpt", Title: "t", Turns: []ConversationTurn{{Role: "user", Content: "hi", CreatedAt: &at}}}).ContentHash() {
		t.Fatalf("hash %q is not a stable SHA-256", h)
	}
	c.Turns[0].Content = "hi!"
	if c.ContentHash() == h {
		t.Fatal("a changed turn kept the hash")
	}
	if got := c.Turns[0].Metadata(c); !reflect.DeepEqual(got, map[string]any{"import": map[string]any{"source": "chatgpt", "original_created_at": "2026-03-01T09:30:00Z"}}) {
		t.Fatalf("turn metadata = %v", got)
	}
	bad := &Conversation{Turns: []ConversationTurn{{Role: "tool", Content: "x"}}}
	if err := bad.Validate(); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || err.Error() != `message 0 has role "tool"` {
		t.Fatalf("Validate = %v", err)
	}
}
