package smriti

import (
	"strings"
	"testing"
)

// validatorCase is one validator's answer and the error it should be: no
// error when code is "", else that code and exactly that message.
type validatorCase struct {
	name   string
	err    error
	code   string
	detail string
}

func runValidatorCases(t *testing.T, cases []validatorCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if tt.code == "" {
				if tt.err != nil {
					t.Fatalf("err = %v, want nil", tt.err)
				}
				return
			}
			if ErrorCode(tt.err) != tt.code || ErrorMessage(tt.err) != tt.detail {
				t.Fatalf("err = %s %q, want %s %q", ErrorCode(tt.err), ErrorMessage(tt.err), tt.code, tt.detail)
			}
		})
	}
}

// long is n characters of a two-byte rune: limits count characters.
func long(n int) string { return strings.Repeat("é", n) }

func TestCheckpointValidators(t *testing.T) {
	okContent := Content{Message: "Title"}
	items := func(n int) []string { return make([]string, n) }
	runValidatorCases(t, []validatorCase{
		{"ContentOK", (&Content{Message: " t ", Decisions: []string{long(MaxItemChars)}}).Validate(), "", ""},
		{"ContentBlankMessage", (&Content{Message: "  "}).Validate(), EUNPROCESSABLE, "message is required (the checkpoint's title)"},
		{"ContentLongMessage", (&Content{Message: long(MaxCheckpointMessageChars + 1)}).Validate(), EUNPROCESSABLE, "message must be at most 255 characters"},
		{"ContentTooManyItems", (&Content{Message: "t", Entities: items(MaxListItems + 1)}).Validate(), EUNPROCESSABLE, "entities has 1001 items; at most 1000 are allowed"},
		{"ContentLongItem", (&Content{Message: "t", OpenQuestions: []string{"", long(MaxItemChars + 1)}}).Validate(), EUNPROCESSABLE, "open_questions[1] is longer than 10000 characters"},
		{"ContentLongTask", (&Content{Message: "t", Tasks: []Task{{Text: long(MaxItemChars + 1)}}}).Validate(), EUNPROCESSABLE, "tasks[0] is longer than 10000 characters"},
		{"ContentTaskStatus", (&Content{Message: "t", Tasks: []Task{{Text: "a", Status: "done"}, {Text: "b", Status: "later"}}}).Validate(), EUNPROCESSABLE, `tasks[1].status must be "open" or "done"`},
		{"ContentArtifacts", (&Content{Message: "t", Artifacts: make([]Artifact, maxCheckpointArtifacts+1)}).Validate(), EUNPROCESSABLE, "artifacts has 101 items; at most 100 are allowed"},
		{"CommitSourceTurns", (&CheckpointCommit{Content: okContent, SourceTurns: &SourceTurns{FromSeq: 3, ToSeq: 2}}).Validate(), EUNPROCESSABLE, "source_turns needs from_seq and to_seq with 0 <= from_seq <= to_seq"},
		{"CommitOK", (&CheckpointCommit{Content: okContent, SourceTurns: &SourceTurns{FromSeq: 0, ToSeq: 0}}).Validate(), "", ""},
		{"CreateAuthorType", (&CheckpointCreate{Content: okContent, AuthorType: "robot"}).Validate(), EUNPROCESSABLE, "author_type must be one of: agent, llm, system, user"},
		{"CreateBranch", (&CheckpointCreate{Content: okContent, BranchName: "a\x00b"}).Validate(), EUNPROCESSABLE, "branch_name must not contain control characters"},
		{"CreateOK", (&CheckpointCreate{Content: okContent, AuthorType: AuthorUser, BranchName: long(maxBranchNameChars)}).Validate(), "", ""},
	})
}
