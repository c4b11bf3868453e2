package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"smriti"
	"smriti/cli"
	"smriti/client"
	"smriti/tokenizer"
	"smriti/wire"
)

// busySpace builds, through the real server, the space the prime budget is
// measured on: 50 checkpoints on main whose state grows to 12 decisions,
// 6 assumptions, 4 open questions and 16 tasks (8 done, 3 blocked), and 10
// active branches forked from main's 40th checkpoint, each with a
// checkpoint whose decisions differ from main's.
func busySpace(t *testing.T, c *client.Client, name string) *wire.Repo {
	t.Helper()
	ctx := context.Background()
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new(name), Description: new("A CLI that ships reasoning state between coding agents")})
	if err != nil {
		t.Fatal(err)
	}
	se, err := c.CreateSession(ctx, &sp.ID, "main work", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	words := func(kind string, i int) string {
		return fmt.Sprintf("%s %d: keep the storage layer behind one interface so both engines answer alike", kind, i)
	}
	content := func(i int) wire.ContentFields {
		msg := fmt.Sprintf("Step %d: storage, claims and the ready queue", i)
		f := wire.ContentFields{Message: &msg, Objective: "Ship a CLI and server that keep agents' reasoning across sessions",
			Summary: fmt.Sprintf("After step %d the store, the claims and the queue work on both engines; packaging is next.", i)}
		for k := 0; k < min(12, 1+i/4); k++ {
			f.Decisions = append(f.Decisions, words("Decision", k))
		}
		for k := 0; k < min(6, 1+i/8); k++ {
			f.Assumptions = append(f.Assumptions, words("Assumption", k))
		}
		for k := 0; k < min(4, 1+i/12); k++ {
			f.OpenQuestions = append(f.OpenQuestions, fmt.Sprintf("Question %d: should the server cap briefs by tokens or by items?", k))
		}
		for k := 0; k < min(16, 1+i/3); k++ {
			task := smriti.Task{Text: fmt.Sprintf("Task %d: write the migration and its conformance case", k), Structured: true}
			if k < 8 && i > 30 {
				task.Status = smriti.TaskDone
			} else if k >= 13 {
				task.BlockedBy = smriti.Blockers{"t-0"}
			}
			f.Tasks = append(f.Tasks, task)
		}
		f.Entities = []string{"SQLite", "PostgreSQL", "MCP", "cobra"}
		return f
	}
	var forkPoint smriti.ID
	for i := 1; i <= 50; i++ {
		cp, err := c.Commit(ctx, wire.CommitRequest{RepoID: ptr(sp.ID.String()), SessionID: ptr(se.ID.String()), ContentFields: content(i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 40 {
			forkPoint = cp.ID
		}
	}
	for b := 0; b < 10; b++ {
		fork, err := c.Fork(ctx, wire.ForkRequest{SpaceID: ptr(sp.ID.String()), CheckpointID: ptr(forkPoint.String()),
			BranchName: fmt.Sprintf("try-%02d", b), Provider: "mock"})
		if err != nil {
			t.Fatal(err)
		}
		f := content(40)
		msg := fmt.Sprintf("Alternative %d: a different queue ranking", b)
		f.Message = &msg
		f.Decisions = append(f.Decisions[:len(f.Decisions)-1], fmt.Sprintf("Rank ready tasks by alternative %d instead", b))
		if _, err := c.Commit(ctx, wire.CommitRequest{RepoID: ptr(sp.ID.String()), SessionID: ptr(fork.SessionID.String()), ContentFields: f}); err != nil {
			t.Fatal(err)
		}
	}
	return sp
}

var tokenLine = regexp.MustCompile(`\n~(\d+) tokens\n$`)

// TestPrimeWithinBudget: `smriti prime` for a space of 50 checkpoints and
// 10 branches costs at most cli.PrimeBudget o200k tokens, and its last line
// says exactly how many.
func TestPrimeWithinBudget(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	c := client.NewClient(base)
	sp := busySpace(t, c, "busy")
	st, err := c.State(context.Background(), sp.ID, client.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compact brief of the same space (state's brief_tokens): %d o200k tokens", st.BriefTokens)
	t.Setenv("SMRITI_API_URL", base)
	out := runOK(t, bin, "", "prime", "busy")
	n := tokenizer.CountO200K(out)
	if testing.Verbose() {
		t.Log(out)
	}
	t.Logf("smriti prime: %d o200k tokens, %d bytes (budget %d)", n, len(out), cli.PrimeBudget)
	m := tokenLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no token line at the end:\n%s", out)
	}
	if said, _ := strconv.Atoi(m[1]); said != n {
		t.Fatalf("prime says ~%d tokens, the text has %d", said, n)
	}
	if n > cli.PrimeBudget {
		t.Fatalf("prime costs %d tokens, over the budget of %d:\n%s", n, cli.PrimeBudget, out)
	}
	for _, want := range []string{"# Smriti: this project's reasoning state\n", "# busy\n", "smriti ready --claim", "## Active branches\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("prime lacks %q:\n%s", want, out)
		}
	}

	var p cli.Prime
	if err := json.Unmarshal([]byte(runOK(t, bin, "", "prime", "busy", "--json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.SpaceID != sp.ID.String() || p.SpaceName != "busy" || p.Tokens != n || p.Text != out || p.Encoding != "o200k_base" {
		t.Fatalf("prime --json = %+v; want space %s, %d tokens and the text printed", p, sp.ID, n)
	}
	if p.Text != p.Usage+"\n"+p.Brief+fmt.Sprintf("\n~%d tokens\n", n) {
		t.Fatalf("text is not usage, brief and token line:\n%s", p.Text)
	}
}
