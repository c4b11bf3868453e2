package app

import (
	"context"
	"smriti"
	"testing"
)

func TestMergeAuthor(t *testing.T) {
	user := smriti.NewID()
	ctx := smriti.WithUser(context.Background(), user)
	agent := "merge-bot"
	for _, tt := range []struct {
		name      string
		agent     *string
		resolved  int
		wantType  string
		wantAgent string
	}{
		{"CleanMergeByAPerson", nil, 0, smriti.AuthorSystem, user.String()},
		{"PersonSettledConflicts", nil, 2, smriti.AuthorUser, user.String()},
		{"AgentMerged", &agent, 1, smriti.AuthorAgent, "merge-bot"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeAuthor(ctx, tt.agent, tt.resolved)
			if got.Type != tt.wantType || got.Agent == nil || *got.Agent != tt.wantAgent {
				t.Fatalf("got %s/%v, want %s/%s", got.Type, got.Agent, tt.wantType, tt.wantAgent)
			}
		})
	}
}

// TestMergeByTheLocalUserIsNamedLocal: a merge by the local user is signed
// "local", not its id.
func TestMergeByTheLocalUserIsNamedLocal(t *testing.T) {
	got := mergeAuthor(context.Background(), nil, 0)
	if got.Type != smriti.AuthorSystem || got.Agent == nil || *got.Agent != smriti.LocalUsername {
		t.Fatalf("local merge author = %s/%v, want system/local", got.Type, got.Agent)
	}
}

func TestItemVersionRefHoldsAnAt(t *testing.T) {
	for ref, want := range map[string]bool{"d-7f3a9c@3f9a1c2b": true, "@": true, "d-7f3a9c": false, "token TTL": false} {
		if got := isItemVersionRef(ref); got != want {
			t.Errorf("isItemVersionRef(%q) = %v, want %v", ref, got, want)
		}
	}
}
