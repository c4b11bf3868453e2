package httpapi_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"smriti/portability"
	"smriti/store/storetest"
	"smriti/wire"
)

// A Claude Code session file imported, imported again unchanged, then again
// once the session has gone on: the same session, only new lines added.
func TestAgentTranscriptImportAddsOnlyNewLines(t *testing.T) {
	for _, engine := range []struct {
		name string
		opts []envOption
	}{{"SQLite", nil}, {"Postgres", []envOption{withPostgres()}}} {
		t.Run(engine.name, func(t *testing.T) {
			e := newEnv(t, engine.opts...)
			space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Agents"), Description: new("")})).Must(t)
			file, err := os.ReadFile("../portability/testdata/transcripts/agents/claude-code.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			first := storetest.Get(e.c.ImportAgentTranscript(bg, space.ID, portability.SourceClaudeCode, "s.jsonl", "", bytes.NewReader(file))).Must(t)
			a := first.Agent
			if a == nil || !a.Created || a.Added != 8 || a.Unchanged != 0 || !a.Truncated || a.SessionKey != "5e55a0e1-1111-4222-8333-444455556666" ||
				first.Imported != 1 || first.Conversations[0].Status != portability.ImportImported {
				t.Fatalf("first import = %+v %+v", first, a)
			}
			again := storetest.Get(e.c.ImportAgentTranscript(bg, space.ID, portability.SourceClaudeCode, "s.jsonl", "", bytes.NewReader(file))).Must(t)
			if b := again.Agent; b.Created || b.Added != 0 || b.Unchanged != 8 || b.SessionID != a.SessionID || again.Unchanged != 1 {
				t.Fatalf("re-import = %+v %+v", again, b)
			}
			// The session went on: the cut-off line is complete, one more follows.
			grown := append(append([]byte{}, file...), []byte(`uns in a row."}]},"uuid":"a0000000-0000-4000-8000-000000000009","timestamp":"2025-10-01T09:40:00.000Z","sessionId":"5e55a0e1-1111-4222-8333-444455556666"}`+"\n")...)
			grown = append(grown, []byte(`{"type":"user","uuid":"a0000000-0000-4000-8000-000000000010","sessionId":"5e55a0e1-1111-4222-8333-444455556666","timestamp":"2025-10-01T09:41:00.000Z","message":{"role":"user","content":"Thanks."}}`+"\n")...)
			third := storetest.Get(e.c.ImportAgentTranscript(bg, space.ID, portability.SourceClaudeCode, "s.jsonl", "", bytes.NewReader(grown))).Must(t)
			if c := third.Agent; c.Added != 2 || c.Unchanged != 8 || c.Truncated || c.SessionID != a.SessionID {
				t.Fatalf("grown import = %+v", c)
			}
			turns := storetest.Get(e.c.Turns(bg, a.SessionID)).Must(t)
			var got []string
			for i, tu := range turns {
				if tu.SequenceNumber != int64(i) {
					t.Fatalf("turn %d has sequence %d", i, tu.SequenceNumber)
				}
				got = append(got, tu.Role+": "+strings.SplitN(tu.Content, "\n", 2)[0])
			}
			want := []string{
				"system: Session summary: Fix the flaky retry test",
				"user: The retry test fails one run in ten. Find out why; use API_KEY=[redacted: generic-api-key] for the staging server.",
				"assistant: I'll read the test and run it.",
				"assistant: Tool call: Read `/home/dev/proj/retry_test.go`",
				"system: Tool result: Read `/home/dev/proj/retry_test.go` → ok, 4 lines",
				"assistant: Decision: the backoff timer uses the real clock; inject the clock instead of sleeping.",
				"system: Compaction summary: This session is being continued from a previous conversation. Summary: the retry test is flaky because backoff sleeps on the real clock. Dead end: raising the timeout did not help.",
				"user: Go ahead and inject the clock.",
				"assistant: Done: the test passes 200 runs in a row.",
				"user: Thanks.",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("turns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if k := turns[6].Metadata["import"].(map[string]any)["kind"]; k != portability.AgentNote {
				t.Errorf("compaction summary kind = %v", k)
			}

			// Codex: the session key from session_meta, a separate session.
			cx, err := os.ReadFile("../portability/testdata/transcripts/agents/codex.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			res := storetest.Get(e.c.ImportAgentTranscript(bg, space.ID, portability.SourceCodex, "rollout.jsonl", "", bytes.NewReader(cx))).Must(t)
			if r := res.Agent; !r.Created || r.Added != 8 || r.Skipped != 7 || r.SessionID == a.SessionID {
				t.Fatalf("codex import = %+v", r)
			}

			// Bad input: an unknown format is a 400 with a detail.
			code, body := e.raw(t, http.MethodPost, "/api/v5/import/transcript?format=cursor&space_id="+space.ID.String(), "{}")
			if code != http.StatusBadRequest || !strings.Contains(body, `"detail"`) || !strings.Contains(body, "claude-code or codex") {
				t.Fatalf("unknown format: %d %s", code, body)
			}
		})
	}
}
