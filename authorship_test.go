package smriti

import (
	"strings"
	"testing"
)

func TestCommitAuthor(t *testing.T) {
	ptr := func(s string) *string { return &s }
	for _, tt := range []struct {
		name      string
		typ       string
		agent     *string
		drafted   bool
		wantType  string
		wantAgent string // "" for nil
		wantCode  string
	}{
		{"TypedByHand", "", nil, false, AuthorUser, "", ""},
		{"BlankAgentIsNoAgent", "", ptr("  "), false, AuthorUser, "", ""},
		{"NamedAgent", "", ptr(" claude-code "), false, AuthorAgent, "claude-code", ""},
		{"DraftedFromTurns", "", nil, true, AuthorLLM, "bg-model", ""},
		{"ExtractSaysLLM", "llm", nil, false, AuthorLLM, "bg-model", ""},
		{"LLMWithNamedModel", "LLM", ptr("gpt-4o"), false, AuthorLLM, "gpt-4o", ""},
		{"DraftEditedAndSavedAsUser", "user", nil, true, AuthorUser, "", ""},
		{"AgentTypeKept", "agent", ptr("ci"), false, AuthorAgent, "ci", ""},
		{"UnknownType", "robot", nil, false, "", "", EUNPROCESSABLE},
		{"AgentTooLong", "", ptr(strings.Repeat("a", maxAuthorAgentChars+1)), false, "", "", EUNPROCESSABLE},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CommitAuthor(tt.typ, tt.agent, tt.drafted, "bg-model")
			if ErrorCode(err) != tt.wantCode {
				t.Fatalf("error %v, want code %q", err, tt.wantCode)
			}
			if err != nil {
				return
			}
			agent := ""
			if got.Agent != nil {
				agent = *got.Agent
			}
			if got.Type != tt.wantType || agent != tt.wantAgent || (tt.wantAgent == "") != (got.Agent == nil) {
				t.Fatalf("got %s/%v, want %s/%q", got.Type, got.Agent, tt.wantType, tt.wantAgent)
			}
		})
	}
}
