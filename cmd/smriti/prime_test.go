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

// thousandItems writes, through the real server, a space whose head holds
// 1,000 live items in one checkpoint: 100 decisions, 100 assumptions, 100
// open questions, 150 open tasks, 150 done tasks and 400 entities (names
// pile up in a long project), each text carrying a unique mark (I0000 …
// I0999).
func thousandItems(t *testing.T, c *client.Client, name string) *wire.Repo {
	t.Helper()
	ctx := context.Background()
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new(name)})
	if err != nil {
		t.Fatal(err)
	}
	msg := "A thousand items"
	f := wire.ContentFields{Message: &msg, Objective: "Keep every item findable at any size",
		Summary: "One checkpoint holds the whole state of a long project."}
	text := func(i int) string {
		return fmt.Sprintf("I%04d keep the retry budget under the pooler's idle timeout", i)
	}
	for i := range 1000 {
		switch {
		case i < 100:
			f.Decisions = append(f.Decisions, text(i))
		case i < 200:
			f.Assumptions = append(f.Assumptions, text(i))
		case i < 300:
			f.OpenQuestions = append(f.OpenQuestions, text(i)+"?")
		case i < 450:
			f.Tasks = append(f.Tasks, smriti.Task{Text: text(i), Status: smriti.TaskOpen, Structured: true})
		case i < 600:
			f.Tasks = append(f.Tasks, smriti.Task{Text: text(i), Status: smriti.TaskDone, Structured: true})
		default:
			f.Entities = append(f.Entities, fmt.Sprintf("I%04d-pooler", i))
		}
	}
	if _, err := c.CommitToSpace(ctx, sp.ID, wire.SpaceCommitRequest{ContentFields: f}); err != nil {
		t.Fatal(err)
	}
	return sp
}

var (
	itemMark = regexp.MustCompile(`I\d{4}`)
	// moreItems is a budgeted brief's count of what it left out, with the
	// command that lists it.
	moreItems = regexp.MustCompile("… and (\\d+) more ([a-z ]+): `smriti state big --all`\n")
	doneCount = regexp.MustCompile(`\n(\d+) task\(s\) done \(listed by ` + "`smriti checkpoint show [0-9a-f]{7}`" + `\)\n`)
)

// accounted checks that a budgeted brief shows each item at most once and
// that what it shows plus what it counts is every one of the 1,000 items,
// and returns what it counted by kind.
func accounted(t *testing.T, what, out string) map[string]int {
	t.Helper()
	shown := map[string]int{}
	for _, m := range itemMark.FindAllString(out, -1) {
		shown[m]++
		if shown[m] > 1 {
			t.Fatalf("%s shows %s twice:\n%s", what, m, out)
		}
	}
	counted := map[string]int{}
	total := len(shown)
	for _, m := range moreItems.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		counted[m[2]] += n
		total += n
	}
	if m := doneCount.FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		counted["done (digest)"] = n
		total += n
	}
	if total != 1000 {
		t.Fatalf("%s shows %d items and counts %v: %d in all, want 1000:\n%s", what, len(shown), counted, total, out)
	}
	if len(counted) == 0 {
		t.Fatalf("%s leaves nothing out at 1,000 items:\n%s", what, out)
	}
	return counted
}

// TestBriefsOfAThousandItems: with 1,000 live items on the head, `smriti
// prime` stays within 2,000 o200k tokens and `smriti state --compact`
// within 3,000; both show the newest open work, count every item they
// leave out with the command that lists it (`smriti state big --all`), and
// that command lists all 1,000.
func TestBriefsOfAThousandItems(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	thousandItems(t, client.NewClient(base), "big")
	t.Setenv("SMRITI_API_URL", base)

	prime := runOK(t, bin, "", "prime", "big")
	if n := tokenizer.CountO200K(prime); n > cli.PrimeBudget {
		t.Fatalf("prime costs %d tokens, over %d:\n%s", n, cli.PrimeBudget, prime)
	}
	compact := runOK(t, bin, "", "state", "big", "--compact")
	if n := tokenizer.CountO200K(compact); n > 3000 {
		t.Fatalf("state --compact costs %d tokens, over 3000:\n%s", n, compact)
	}
	for what, out := range map[string]string{"prime": prime, "state --compact": compact} {
		counted := accounted(t, what, out)
		t.Logf("%s: %d tokens, left out %v", what, tokenizer.CountO200K(out), counted)
		// The newest open task and the newest open question come first.
		for _, want := range []string{"I0449 keep", "I0299 keep"} {
			if !strings.Contains(out, want) {
				t.Fatalf("%s does not show %s:\n%s", what, want, out)
			}
		}
	}

	for _, args := range [][]string{{"state", "big", "--all"}, {"state", "big", "--compact", "--all"}} {
		all := runOK(t, bin, "", args...)
		seen := map[string]int{}
		for _, m := range itemMark.FindAllString(all, -1) {
			seen[m]++
		}
		for i := range 1000 {
			if m := fmt.Sprintf("I%04d", i); seen[m] != 1 {
				t.Fatalf("smriti %s lists %s %d times, want once", strings.Join(args, " "), m, seen[m])
			}
		}
		if strings.Contains(all, "… and ") {
			t.Fatalf("smriti %s leaves something out:\n%s", strings.Join(args, " "), all)
		}
	}
}
