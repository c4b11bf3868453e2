package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf16"

	"smriti/cli"
	"smriti/client"
)

// TestSessionStartBriefOfAThousandItemsFitsTheHost: at 1,000 live items
// the brief a SessionStart hook gives the model stays within what Claude
// Code passes whole (10,000 characters of additionalContext, counted as
// JavaScript counts them; past that it saves the text to a file and shows
// a preview), at startup and when re-injected after a compaction, and it
// still says what it left out and how to list it.
func TestSessionStartBriefOfAThousandItemsFitsTheHost(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	thousandItems(t, client.NewClient(base), "big")
	t.Setenv("SMRITI_API_URL", base)
	t.Setenv("HOME", t.TempDir())
	cwd := t.TempDir()
	input := func(source string) string {
		b, _ := json.Marshal(map[string]string{"session_id": "5e55a0e1-1111-4222-8333-444455556666", "cwd": cwd,
			"hook_event_name": "SessionStart", "source": source})
		return string(b)
	}
	chars := func(s string) int { return len(utf16.Encode([]rune(s))) }

	startup := runOK(t, bin, input("startup"), "hook", "session-start", "--space", "big")
	var out struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	compact := runOK(t, bin, input("compact"), "hook", "session-start", "--space", "big")
	if err := json.Unmarshal([]byte(compact), &out); err != nil {
		t.Fatalf("SessionStart (compact) printed no JSON: %v\n%s", err, compact)
	}
	for what, text := range map[string]string{"startup": startup, "compact": out.HookSpecificOutput.AdditionalContext} {
		if n := chars(text); n > cli.HostContextChars || n < cli.HostContextChars/2 {
			t.Fatalf("%s brief: %d characters, want between %d and %d:\n%s", what, n, cli.HostContextChars/2, cli.HostContextChars, text)
		}
		counted := accounted(t, what, text)
		t.Logf("%s brief: %d characters, left out %v", what, chars(text), counted)
		if !strings.Contains(text, "I0449 keep") {
			t.Fatalf("%s brief does not show the newest open task:\n%s", what, text)
		}
	}
	if !strings.Contains(out.SystemMessage, "INCOMPLETE") {
		t.Fatalf("a re-injection that left decisions out says nothing of it: %q", out.SystemMessage)
	}
}

// TestHookGivesUpOnAServerThatHangs: a server that accepts a hook's
// request and never answers does not hold the agent: the hook gives up at
// its deadline (well within the host's timeout) and says why.
func TestHookGivesUpOnAServerThatHangs(t *testing.T) {
	bin := buildBinary(t)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	t.Setenv("SMRITI_API_URL", hang.URL)
	t.Setenv("SMRITI_HOOK_TIMEOUT", "1s")
	t.Setenv("HOME", t.TempDir())
	cwd := t.TempDir()
	in := `{"session_id":"5e55a0e1-1111-4222-8333-444455556666","transcript_path":"` + cwd + `/t.jsonl","cwd":"` + cwd +
		`","hook_event_name":"SessionStart","source":"startup"}`
	want := "the Smriti server did not answer within 1s; the hook gave up so the agent goes on"
	if out := runOK(t, bin, in, "hook", "session-start", "--space", "demo"); out != "Smriti: the brief could not be read: "+want+"\n" {
		t.Fatalf("session-start said %q", out)
	}
	cmd := exec.Command(bin, "hook", "pre-compact", "--space", "demo")
	cmd.Stdin = strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || stdout.Len() != 0 || stderr.String() != "error: "+want+"\n" {
		t.Fatalf("pre-compact: %v, stdout %q, stderr %q; want exit 1, nothing on stdout, %q on stderr", err, stdout.String(), stderr.String(), want)
	}
}
