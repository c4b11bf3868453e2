package render

import (
	"fmt"
	"strconv"
	"strings"

	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
)

// primeUsage is how to use Smriti, in the few commands an agent needs. The
// first %s is the space's name, the second the save's base flag.
const primeUsage = `# Smriti: this project's reasoning state
Decisions, assumptions, open questions and tasks live in space %q as checkpoints. Read the brief below, then work from it; save a checkpoint when something is settled and before you stop.

- Brief again: ` + "`smriti prime`" + ` (or ` + "`smriti state --compact`" + `)
- Next task: ` + "`smriti ready`" + `; take one exclusively: ` + "`smriti ready --claim --agent NAME`" + `; renew ` + "`smriti claim heartbeat CLAIM`" + `, finish ` + "`smriti claim done CLAIM`" + `
- Save: ` + "`echo '{\"message\":\"…\",\"decisions\":[\"…\"],\"tasks\":[\"…\"]}' | smriti checkpoint create SPACE%s`" + ` (a checkpoint is the whole state: give every list in full%s); from notes: ` + "`smriti checkpoint create SPACE --extract --yes < notes.md`" + `
- Look up: ` + "`smriti why SPACE ITEM`" + `, ` + "`smriti search WORDS`" + `, ` + "`smriti checkpoint show REF`" + `
- Try an alternative: ` + "`smriti fork REF --branch NAME`" + `, then ` + "`smriti compare A B`" + `
`

// PrimeUsage is the how-to part of `smriti prime` for a space whose head
// has headHash ("" when it has no checkpoint yet). It needs no counting, so
// a client can tell it apart from the brief the server rendered after it.
func PrimeUsage(spaceName, headHash string) string {
	// A save names the state it was written from, so that another
	// agent's save made meanwhile is merged in rather than overwritten.
	baseFlag, baseNote := "", ""
	if headHash != "" {
		baseFlag = " --base " + textutil.ShortHash(headHash)
		baseNote = "; --base is the checkpoint you started from: this head, or your last save"
	}
	return fmt.Sprintf(primeUsage, spaceName, baseFlag, baseNote)
}

// TokenEncoding names the encoding the brief's "~N tokens" line and the
// budgets count in (the tokenizer package's O200K).
const TokenEncoding = "o200k_base"

// primeUsageEnd starts the last line of the usage.
const primeUsageEnd = "\n- Try an alternative: "

// SplitPrime takes apart the text RenderPrime makes: its usage, its brief
// and the tokens its token line says the whole costs; false when text is
// not such a text.
func SplitPrime(text string) (usage, brief string, tokens int, ok bool) {
	body, n, counted := SplitTokenLine(text)
	i := strings.Index(body, primeUsageEnd)
	if !counted || !strings.HasPrefix(body, "# Smriti: ") || i < 0 {
		return "", "", 0, false
	}
	j := strings.IndexByte(body[i+1:], '\n')
	if j < 0 {
		return "", "", 0, false
	}
	usage = body[:i+1+j+1]
	rest, blank := strings.CutPrefix(body[len(usage):], "\n")
	if !blank {
		return "", "", 0, false
	}
	return usage, rest, n, true
}

// Prime is what `smriti prime` prints, in its parts.
type Prime struct {
	// Usage is the how-to part, Brief the compact brief (without a token
	// line); Text is both as printed, ending with its "~N tokens" line.
	Usage, Brief, Text string
	Tokens             int
}

// RenderPrime renders the usage and the compact digest brief of b within
// PrimeBudget tokens as o.Count (else o.Tokens) counts them, keeping
// reserve tokens free for what the caller adds to the brief (the stale-ref
// section it checked against its own work tree). o's Mode, Digest and
// Budget are set here.
func RenderPrime(b *coord.StateBrief, o BriefOptions, reserve int) Prime {
	count := o.Count
	if count == nil {
		count = o.Tokens
	}
	hash := ""
	if b.Head != nil {
		hash = b.Head.Hash
	}
	usage := PrimeUsage(nameOf(b.Space), hash)
	o.Mode, o.Digest, o.Count, o.Tokens = BriefCompact, true, count, nil
	// The brief's budget is what the usage, the token line and the
	// caller's reserve leave.
	o.Budget = max(1, PrimeBudget-count(usage+"\n")-12-max(0, reserve))
	brief := RenderBrief(b, o)
	text, n := WithTokenLine(usage+"\n"+strings.TrimLeft(brief, "\n"), count)
	return Prime{Usage: usage, Brief: brief, Text: text, Tokens: n}
}

func nameOf(sp *smriti.Space) string {
	if sp == nil {
		return ""
	}
	return sp.Name
}

// SplitTokenLine parses the "\n~N tokens\n" line WithTokenLine appends:
// the text before it and N, or text unchanged and false when it has none.
func SplitTokenLine(text string) (string, int, bool) {
	body, last, ok := cutLastLine(strings.TrimSuffix(text, "\n"))
	if !ok || !strings.HasPrefix(last, "~") || !strings.HasSuffix(last, " tokens") {
		return text, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(last, "~"), " tokens"))
	if err != nil || n < 0 || !strings.HasSuffix(body, "\n") {
		return text, 0, false
	}
	return strings.TrimSuffix(body, "\n"), n, true
}

// cutLastLine splits s before its last line.
func cutLastLine(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return "", "", false
	}
	return s[:i+1], s[i+1:], true
}
