package portability

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"smriti"
	"strings"
	"testing"
)

type gotEntry struct{ Key, Kind, Role, Content string }

func readAgentFixture(t *testing.T, format string) ([]gotEntry, *AgentTranscriptInfo) {
	t.Helper()
	f, err := os.Open("testdata/transcripts/agents/" + format + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []gotEntry
	info, err := ReadAgentTranscript(f, format, func(e AgentEntry, _ *AgentTranscriptInfo) error {
		if e.CreatedAt == nil && !strings.HasPrefix(e.Key, "summary:") {
			t.Errorf("entry %s has no time", e.Key)
		}
		got = append(got, gotEntry{e.Key, e.Kind, e.Role, e.Content})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, info
}

func TestReadAgentTranscriptClaudeCode(t *testing.T) {
	got, info := readAgentFixture(t, SourceClaudeCode)
	u := func(n int) string { return fmt.Sprintf("a0000000-0000-4000-8000-00000000000%d", n) }
	want := []gotEntry{
		{"summary:" + u(6), AgentNote, smriti.RoleSystem, "Session summary: Fix the flaky retry test"},
		{u(1), AgentMessage, smriti.RoleUser, "The retry test fails one run in ten. Find out why; use API_KEY=[redacted: generic-api-key] for the staging server."},
		{u(2), AgentMessage, smriti.RoleAssistant, "I'll read the test and run it."},
		{u(2) + ":tools", AgentTool, smriti.RoleAssistant, "Tool call: Read `/home/dev/proj/retry_test.go`\nTool call: Bash `go test -run TestRetry -count=20 ./provider/`"},
		{u(3) + ":results", AgentTool, smriti.RoleSystem, "Tool result: Read `/home/dev/proj/retry_test.go` → ok, 4 lines\n" +
			"Tool result: Bash `go test -run TestRetry -count=20 ./provider/` → error: --- FAIL: TestRetry (0.01s)"},
		{u(5), AgentMessage, smriti.RoleAssistant, "Decision: the backoff timer uses the real clock; inject the clock instead of sleeping."},
		{u(7), AgentNote, smriti.RoleSystem, "Compaction summary: This session is being continued from a previous conversation. Summary: the retry test is flaky because backoff sleeps on the real clock. Dead end: raising the timeout did not help."},
		{u(8), AgentMessage, smriti.RoleUser, "Go ahead and inject the clock."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %q\nwant %q", got, want)
	}
	// The meta line, the subagent's sidechain and the compact boundary are
	// skipped; the cut-off last line is left for the next import.
	wantInfo := AgentTranscriptInfo{Source: SourceClaudeCode, SessionKey: "5e55a0e1-1111-4222-8333-444455556666", Cwd: "/home/dev/proj",
		Lines: 11, Skipped: 3, Truncated: true}
	if *info != wantInfo {
		t.Errorf("info = %+v, want %+v", *info, wantInfo)
	}
}

func TestReadAgentTranscriptCodex(t *testing.T) {
	got, info := readAgentFixture(t, SourceCodex)
	var kinds, contents []string
	for _, e := range got {
		kinds = append(kinds, e.Kind+"/"+e.Role)
		contents = append(contents, e.Content)
		if len(e.Key) != 32 {
			t.Errorf("key %q is not a line hash", e.Key)
		}
	}
	wantKinds := []string{"message/user", "tool/assistant", "tool/system", "tool/assistant", "tool/system", "message/assistant", "note/system", "message/assistant"}
	wantContents := []string{
		"Add a --ttl flag to claim create.",
		"Tool call: shell `bash -lc rg -n ttl cli/`",
		"Tool result: shell `bash -lc rg -n ttl cli/` → ok, 2 lines",
		"Tool call: shell `bash -lc GITHUB_TOKEN=[redacted: github-pat] go test ./cli/`",
		"Tool result: shell `bash -lc GITHUB_TOKEN=[redacted: github-pat] go test ./cli/` → error: --- FAIL: TestClaimTTL",
		"The flag parses hours only; I'll make it take Go durations.",
		"Compaction summary: Summary so far: --ttl takes hours only; decided to accept Go durations like 2h.",
		"Durations now parse with time.ParseDuration.",
	}
	if !reflect.DeepEqual(kinds, wantKinds) || !reflect.DeepEqual(contents, wantContents) {
		t.Errorf("entries:\n got %q\n     %q\nwant %q\n     %q", kinds, contents, wantKinds, wantContents)
	}
	// session_meta, the injected environment context, event_msg twice,
	// turn_context, reasoning and the line that is not JSON.
	wantInfo := AgentTranscriptInfo{Source: SourceCodex, SessionKey: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Cwd: "/home/dev/proj", Lines: 15, Skipped: 7}
	if *info != wantInfo {
		t.Errorf("info = %+v, want %+v", *info, wantInfo)
	}
}

func TestReadAgentTranscriptUnknownFormat(t *testing.T) {
	_, err := ReadAgentTranscript(strings.NewReader("{}"), "cursor", func(AgentEntry, *AgentTranscriptInfo) error { return nil })
	if smriti.ErrorCode(err) != smriti.EINVALID {
		t.Fatalf("err = %v, want EINVALID", err)
	}
}

// generatedTranscript produces a Claude Code transcript of about size
// bytes line by line, never holding more than one line, and counts what
// has been read from it; one line in the middle is a 9 MB tool result.
type generatedTranscript struct {
	size, read int64
	n          int
	pending    []byte
}

func (g *generatedTranscript) Read(p []byte) (int, error) {
	if len(g.pending) == 0 {
		if g.read >= g.size {
			return 0, io.EOF
		}
		g.n++
		if g.n == 1000 {
			g.pending = []byte(`{"type":"user","uuid":"big","sessionId":"s-big","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"` +
				strings.Repeat("y", 9<<20) + `"}]}}` + "\n")
		} else {
			g.pending = fmt.Appendf(nil, `{"type":"assistant","uuid":"u-%d","sessionId":"s-big","timestamp":"2025-10-01T09:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"step %d %s"}]}}`+"\n",
				g.n, g.n, strings.Repeat("z", 400))
		}
	}
	k := copy(p, g.pending)
	g.pending = g.pending[k:]
	g.read += int64(k)
	return k, nil
}

func TestReadAgentTranscriptStreamsFiftyMegabytes(t *testing.T) {
	g := &generatedTranscript{size: 50 << 20}
	entries := 0
	info, err := ReadAgentTranscript(g, SourceClaudeCode, func(e AgentEntry, _ *AgentTranscriptInfo) error {
		entries++
		// Streamed: when the first entry arrives, at most one buffer's worth
		// of the 50 MB has been read.
		if entries == 1 && g.read > 1<<20 {
			t.Fatalf("%d bytes read before the first entry", g.read)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.read < 50<<20 {
		t.Fatalf("read %d bytes, want the whole 50 MB", g.read)
	}
	// Every generated line but the 9 MB one (too long: skipped) is an entry.
	if entries != g.n-1 || info.Lines != g.n || info.Skipped != 1 || info.Truncated {
		t.Fatalf("entries %d of %d lines, info %+v", entries, g.n, *info)
	}
}
