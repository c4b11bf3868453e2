package render_test

import (
	"fmt"
	"regexp"
	"smriti"
	"smriti/coord"
	"smriti/render"
	"smriti/tokenizer"
	"strings"
	"testing"
)

// bigBrief is a brief whose head holds n live items spread over the kinds,
// each text carrying a unique id (I0000, I0001, …) and some words.
func bigBrief(n int) *coord.StateBrief {
	c := &smriti.Checkpoint{Hash: strings.Repeat("ab", 32), CreatedAt: now}
	c.Message = "busy"
	words := "because the retry budget must stay under the pooler's idle timeout"
	for i := range n {
		text := fmt.Sprintf("I%04d %s", i, words)
		switch i % 5 {
		case 0:
			c.Decisions = append(c.Decisions, text)
		case 1:
			c.Assumptions = append(c.Assumptions, text)
		case 2:
			c.OpenQuestions = append(c.OpenQuestions, text)
		case 3:
			c.Tasks = append(c.Tasks, smriti.Task{Text: text, Status: smriti.TaskOpen})
		default:
			c.Tasks = append(c.Tasks, smriti.Task{Text: text, Status: smriti.TaskDone})
		}
	}
	return &coord.StateBrief{Space: &smriti.Space{Name: "demo"}, Head: c}
}

var itemID = regexp.MustCompile(`I\d{4}`)

// Budgeted briefs stay within budget at any size and count what they leave
// out; the unbudgeted brief lists every item exactly once.
func TestBriefWithinBudgetAtAnySize(t *testing.T) {
	for _, n := range []int{20, 300, 1000} {
		b := bigBrief(n)
		compact := render.RenderBrief(b, render.BriefOptions{Mode: render.BriefCompact, Now: now, Tokens: tokenizer.CountO200K, Budget: render.CompactBriefBudget})
		digest := render.RenderBrief(b, render.BriefOptions{Mode: render.BriefCompact, Digest: true, Now: now, Tokens: tokenizer.CountO200K, Budget: render.PrimeBudget})
		all := render.RenderBrief(b, render.BriefOptions{Mode: render.BriefCompact, Now: now, Tokens: tokenizer.CountO200K})
		ct, dt, at := tokenizer.CountO200K(compact), tokenizer.CountO200K(digest), tokenizer.CountO200K(all)
		t.Logf("%d items: compact %d tokens, digest %d tokens, all %d tokens", n, ct, dt, at)
		if ct > render.CompactBriefBudget || dt > render.PrimeBudget {
			t.Fatalf("%d items: compact %d tokens (budget %d), digest %d (budget %d)", n, ct, render.CompactBriefBudget, dt, render.PrimeBudget)
		}
		seen := map[string]int{}
		for _, id := range itemID.FindAllString(all, -1) {
			seen[id]++
		}
		for i := range n {
			if id := fmt.Sprintf("I%04d", i); seen[id] != 1 {
				t.Fatalf("%d items: %s listed %d times in the full brief", n, id, seen[id])
			}
		}
		if n >= 300 {
			// What is shown plus what is counted is every item.
			shown := len(itemID.FindAllString(compact, -1))
			counted := 0
			for _, m := range regexp.MustCompile(`… and (\d+) more [a-z ]+: `+"`smriti state demo --all`").FindAllStringSubmatch(compact, -1) {
				var k int
				fmt.Sscan(m[1], &k)
				counted += k
			}
			if shown+counted != n {
				t.Fatalf("%d items: %d shown + %d counted", n, shown, counted)
			}
			newestOpen := fmt.Sprintf("I%04d", n-2) // n-2 ≡ 3 (mod 5): the newest open task
			if n%5 == 0 && !strings.Contains(compact, newestOpen) {
				t.Fatalf("%d items: the newest open task %s is not shown", n, newestOpen)
			}
		}
	}
}

// Names count against the budget too: a head with 600 entities and a few
// other items stays within the compact budget, shows the newest names and
// counts the rest with the command that lists them.
func TestBriefBudgetCountsEntities(t *testing.T) {
	b := bigBrief(20)
	for i := range 600 {
		b.Head.Entities = append(b.Head.Entities, fmt.Sprintf("E%04d-service", i))
	}
	out := render.RenderBrief(b, render.BriefOptions{Mode: render.BriefCompact, Now: now, Tokens: tokenizer.CountO200K, Budget: render.CompactBriefBudget})
	if n := tokenizer.CountO200K(out); n > render.CompactBriefBudget {
		t.Fatalf("compact brief costs %d tokens, over %d", n, render.CompactBriefBudget)
	}
	shown := len(regexp.MustCompile(`E\d{4}-service`).FindAllString(out, -1))
	m := regexp.MustCompile("… and (\\d+) more entities: `smriti state demo --all`\n").FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count of the entities left out:\n%s", out)
	}
	var left int
	fmt.Sscan(m[1], &left)
	if shown+left != 600 || !strings.Contains(out, "E0599-service") {
		t.Fatalf("%d entities shown + %d counted, want 600 with the newest (E0599) shown:\n%s", shown, left, out)
	}
	for i := range 20 {
		if id := fmt.Sprintf("I%04d", i); !strings.Contains(out, id) {
			t.Fatalf("%s is not shown: 20 items fit beside the names:\n%s", id, out)
		}
	}
}
