package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"smriti/client"
	"smriti/render"
	"smriti/store/storetest"
	"smriti/tokenizer"
	"smriti/wire"
)

// TestBriefRenderedForTheCLI: the brief route renders and counts what the
// CLI prints, so the CLI needs no tokenizer of its own: the prime text
// (its usage, its brief and an exact token line within 2,000 tokens),
// room kept for what the client adds (reserve), a brief shrunk to a
// character limit (max_chars), main's head alone (main_only) and paths
// under the reader's home shown as ~ (home).
func TestBriefRenderedForTheCLI(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Big"), Description: new(""),
		ProjectRoot: new("/home/ada/big")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	var decisions []string
	for i := range 300 {
		decisions = append(decisions, fmt.Sprintf("D%03d keep the retry budget under the pooler's idle timeout", i))
	}
	head := commitVia(t, e, space.ID, se.ID, "Many", decisions...)
	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: sp(space.ID.String()), CheckpointID: sp(head.ID.String()), BranchName: "alt"})).Must(t)
	commitVia(t, e, space.ID, fork.SessionID, "Alt", "Hosted models")
	brief := func(o client.BriefOptions) string { return storetest.Get(e.c.Brief(bg, space.ID, o)).Must(t) }

	t.Run("PrimeCountedByTheServer", func(t *testing.T) {
		text := brief(client.BriefOptions{Prime: true})
		usage, body, n, ok := render.SplitPrime(text)
		if !ok || usage != render.PrimeUsage("Big", head.CommitHash) || !strings.HasPrefix(body, "# Big\n") {
			t.Fatalf("prime text not usage then brief (ok %v):\n%s", ok, text)
		}
		if exact := tokenizer.CountO200K(text); n != exact || n > render.PrimeBudget || n < render.PrimeBudget-200 {
			t.Fatalf("prime says ~%d tokens; the text has %d (budget %d)", n, exact, render.PrimeBudget)
		}
		reserved := brief(client.BriefOptions{Prime: true, Reserve: 600})
		_, _, m, _ := render.SplitPrime(reserved)
		if m != tokenizer.CountO200K(reserved) || m > render.PrimeBudget-600 || m < render.PrimeBudget-800 {
			t.Fatalf("prime with 600 reserved says ~%d tokens (exact %d), want within %d", m, tokenizer.CountO200K(reserved), render.PrimeBudget-600)
		}
	})
	t.Run("BudgetKeepsTheReserveFree", func(t *testing.T) {
		md := brief(client.BriefOptions{Compact: true, Budget: 3000, Reserve: 1000})
		_, n, ok := render.SplitTokenLine(md)
		if !ok || n != tokenizer.CountO200K(md) || n > 2000 || n < 1800 || !strings.Contains(md, "more decisions: `smriti state Big --all`") {
			t.Fatalf("budget 3000 with 1000 reserved: ~%d tokens (exact %d):\n%s", n, tokenizer.CountO200K(md), md)
		}
	})
	t.Run("MaxCharsShrinksTheBudget", func(t *testing.T) {
		all := brief(client.BriefOptions{Compact: true})
		fit := brief(client.BriefOptions{Compact: true, MaxChars: 4000})
		if render.JSChars(all) <= 4000 || render.JSChars(fit) > 4000 || render.JSChars(fit) < 2000 ||
			!strings.Contains(fit, "more decisions") || !strings.Contains(fit, "D299 keep") {
			t.Fatalf("max_chars 4000: %d characters from %d:\n%s", render.JSChars(fit), render.JSChars(all), fit)
		}
	})
	t.Run("MainOnlyAndHome", func(t *testing.T) {
		md := brief(client.BriefOptions{Compact: true, Budget: 1000})
		if !strings.Contains(md, "## Active branches\n- `alt`") || !strings.Contains(md, "Project root: /home/ada/big\n") {
			t.Fatalf("brief lacks the branch or the root:\n%s", md)
		}
		md = brief(client.BriefOptions{Compact: true, Budget: 1000, MainOnly: true, Home: "/home/ada"})
		if strings.Contains(md, "Active branches") || !strings.Contains(md, "Project root: ~/big\n") {
			t.Fatalf("main_only and home not applied:\n%s", md)
		}
	})
	t.Run("BadParameters", func(t *testing.T) {
		base := "/api/v5/spaces/" + space.ID.String() + "/brief?"
		for q, want := range map[string]string{
			"reserve=-1":     `reserve must be a whole number from 0 to 1000000, got "-1"`,
			"max_chars=0":    `max_chars must be a whole number from 1 to 1000000, got "0"`,
			"max_chars=many": `max_chars must be a whole number from 1 to 1000000, got "many"`,
			"prime=maybe":    `query parameter prime must be true or false, got "maybe"`,
			"main_only=2":    `query parameter main_only must be true or false, got "2"`,
		} {
			status, body := e.raw(t, http.MethodGet, base+q, "")
			if detail, _ := json.Marshal(map[string]string{"detail": want}); status != http.StatusBadRequest || body != string(detail)+"\n" {
				t.Errorf("%s: %d %q, want 400 %q", q, status, body, want)
			}
		}
	})
}
