package portability

import (
	"reflect"
	"strings"
	"testing"
)

// editedPathsOf imports a transcript and lists the files each tool entry's
// calls edited, entry by entry (entries that edited nothing left out).
func editedPathsOf(t *testing.T, format, transcript string) [][]string {
	t.Helper()
	var out [][]string
	_, err := ReadAgentTranscript(strings.NewReader(transcript), format, func(e AgentEntry, _ *AgentTranscriptInfo) error {
		if p := EditedPaths(e.Content); e.Kind == AgentTool && len(p) > 0 {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEditedPathsClaudeCode(t *testing.T) {
	transcript := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"Edit cli/a.go please"}}
{"type":"assistant","uuid":"u2","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"Tool call: Edit ` + "`" + `/p/fake.go` + "`" + `"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/read.go"}},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/p/cli/a.go","old_string":"x","new_string":"y"}},{"type":"tool_use","id":"t3","name":"MultiEdit","input":{"file_path":"/p/cli/b.go","edits":[]}},{"type":"tool_use","id":"t4","name":"Write","input":{"file_path":"/p/cli/a.go","content":"z"}},{"type":"tool_use","id":"t5","name":"NotebookEdit","input":{"notebook_path":"/p/n.ipynb","new_source":"1"}},{"type":"tool_use","id":"t6","name":"Bash","input":{"command":"rm /p/cli/c.go"}}]}}
{"type":"user","uuid":"u3","sessionId":"s","message":{"role":"user","content":[{"tool_use_id":"t2","type":"tool_result","content":"The file /p/cli/a.go has been updated."}]}}
`
	got := editedPathsOf(t, SourceClaudeCode, transcript)
	// The assistant's own text that looks like a tool line is a message
	// entry, not a call: only the tool entry names files.
	want := [][]string{{"/p/cli/a.go", "/p/cli/b.go", "/p/n.ipynb"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edited paths %q, want %q", got, want)
	}
}

func TestEditedPathsCodexApplyPatch(t *testing.T) {
	transcript := `{"timestamp":"2026-12-03T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/p"}}
{"timestamp":"2026-12-03T10:00:01.000Z","type":"response_item","payload":{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: cli/a.go\n*** Move to: cli/b.go\n@@\n-x\n+y\n*** Delete File: old.go\n*** Add File: new.go\n+package p\n*** End Patch\n"}}
{"timestamp":"2026-12-03T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Update File: app/x.go\\n@@\\n-a\\n+b\\n*** End Patch\\n\"]}","call_id":"c2"}}
{"timestamp":"2026-12-03T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"sed -i s/a/b/ app/y.go\"]}","call_id":"c3"}}
`
	got := editedPathsOf(t, SourceCodex, transcript)
	want := [][]string{{"cli/a.go", "cli/b.go", "new.go"}, {"app/x.go"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edited paths %q, want %q", got, want)
	}
}
