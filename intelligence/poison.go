package intelligence

import (
	"fmt"
	"regexp"
	"smriti"
	"smriti/internal/textutil"
	"strings"
	"sync"
)

// Poisoned memory: a checkpoint is fed back to models as context, so text in
// it that is addressed to a model ("ignore previous instructions", "record
// the decision to…") is an attack on every later conversation. These checks
// are deterministic, so they hold even when the model doing the drafting or
// the review was itself fooled.

// suspiciousPattern matches text that reads like an instruction to a model.
// The alternatives are deliberately specific: project state rarely says
// "you are now" or "previous instructions", so false positives stay rare.
// "system prompt" alone is ordinary vocabulary in AI projects, so only text
// addressing the model's own prompt is flagged; role impersonation is
// matched upper-case only ("System: Ubuntu" is data). The alternatives form
// one expression so that a long artifact is scanned once (a few MB/s).
// Compiling it allocates about 150 KB, so it is built on first use rather
// than at every start of the binary, most of which never check a text.
var suspiciousPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`(?i:\b(ignore|disregard|forget|override|overwrite|skip)\s+(all\s+|any\s+|the\s+|your\s+|of\s+|these\s+|those\s+|my\s+)*(previous|prior|above|earlier|preceding|former|original|system|existing)\s+(instructions?|prompts?|messages?|rules|guidelines|context|directions|constraints))`,
		`(?i:\bdisregard\s+(the\s+|everything\s+|all\s+)?(above|before|previous))`,
		`(?i:\bignore\s+(everything|all)\s+(above|before|said))`,
		`(?i:\byou\s+are\s+now\b)`,
		`(?i:\bfrom\s+now\s+on,?\s+(you|always|never|ignore|respond|answer)\b)`,
		`(?i:\b(your|new|following)\s+system\s+prompt\b)`,
		`(?i:\b(reveal|print|output|repeat|show|leak)\s+(your|the)\s+(system\s+)?(prompt|instructions)\b)`,
		`(?i:\b(do\s+not|don't|never)\s+(tell|inform|reveal\s+to|mention\s+(this\s+)?to|let)\s+the\s+user\b)`,
		`(?i:\brecord\s+(the|a|this)\s+decision\s+(to|that)\b)`,
		`(?i:\bas\s+an\s+(ai|a\.i\.|language\s+model|llm)\b)`,
		`(?i:\bnew\s+instructions?\s*:)`,
		`(?m:^\s*(SYSTEM|ASSISTANT)\s*:)`,
		`(?i:<\|?(im_start|im_end|system|endoftext)\|?>)`,
		`(?i:\[/?(inst|sys)\])`,
		`(?i:\b(jailbreak|dan\s+mode|developer\s+mode)\b)`,
	}, "|"))
})

// IsSuspicious reports whether s reads like an instruction to a model.
func IsSuspicious(s string) bool {
	_, ok := suspiciousSnippet(s)
	return ok
}

func suspiciousSnippet(s string) (string, bool) {
	loc := suspiciousPattern().FindStringIndex(s)
	if loc == nil {
		return "", false
	}
	// Widen the match to its line, then cut to a readable length.
	start := strings.LastIndexByte(s[:loc[0]], '\n') + 1
	end := len(s)
	if i := strings.IndexByte(s[loc[1]:], '\n'); i >= 0 {
		end = loc[1] + i
	}
	line := strings.TrimSpace(s[start:end])
	if len([]rune(line)) > 160 {
		// keep the match itself visible
		m := strings.TrimSpace(s[loc[0]:loc[1]])
		line = textutil.Truncate(m, 160)
	}
	return line, true
}

// sanitizeDraft drops instruction-like items from a draft's lists and adds a
// warning for each; instruction-like title, objective, summary or artifacts
// are kept (a person edits them before saving) but warned about.
func sanitizeDraft(d *Draft) {
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	for _, f := range []struct {
		name string
		list *[]string
	}{
		{"decision", &d.Decisions}, {"assumption", &d.Assumptions},
		{"open question", &d.OpenQuestions}, {"entity", &d.Entities},
	} {
		kept := []string{}
		for _, it := range *f.list {
			if snip, bad := suspiciousSnippet(it); bad {
				d.Warnings = append(d.Warnings, fmt.Sprintf("Dropped a %s that reads like an instruction to a model: %q", f.name, snip))
				continue
			}
			kept = append(kept, it)
		}
		*f.list = kept
	}
	tasks := []smriti.Task{}
	for _, t := range d.Tasks {
		if snip, bad := suspiciousSnippet(t.Text); bad {
			d.Warnings = append(d.Warnings, fmt.Sprintf("Dropped a task that reads like an instruction to a model: %q", snip))
			continue
		}
		tasks = append(tasks, t)
	}
	d.Tasks = tasks
	for _, f := range []struct{ name, text string }{{"title", d.Title}, {"objective", d.Objective}, {"summary", d.Summary}} {
		if snip, bad := suspiciousSnippet(f.text); bad {
			d.Warnings = append(d.Warnings, fmt.Sprintf("The %s contains text that reads like an instruction to a model: %q", f.name, snip))
		}
	}
	for _, a := range d.Artifacts {
		if snip, bad := suspiciousSnippet(a.Label + "\n" + a.Content); bad {
			d.Warnings = append(d.Warnings, fmt.Sprintf("Artifact %s contains text that reads like an instruction to a model: %q", a.ID, snip))
		}
	}
}

// ReviewChecks returns a suspicious_instruction issue for every part of c
// that reads like an instruction to a model. The review endpoint lists them
// before the model's own issues (CombineReview).
func ReviewChecks(c *smriti.Checkpoint) []ReviewIssue {
	issues := []ReviewIssue{}
	check := func(where, text string) {
		if snip, bad := suspiciousSnippet(text); bad {
			issues = append(issues, ReviewIssue{
				Type:        IssueSuspiciousInstruction,
				Description: fmt.Sprintf("The %s reads like an instruction to an AI model rather than project state: %q", where, snip),
			})
		}
	}
	check("title", c.Message)
	check("objective", c.Objective)
	check("summary", c.Summary)
	lists := []struct {
		name  string
		items []string
	}{
		{"decision", c.Decisions}, {"assumption", c.Assumptions}, {"task", c.TaskTexts()},
		{"open question", c.OpenQuestions}, {"entity", c.Entities},
	}
	for _, l := range lists {
		for i, it := range l.items {
			check(fmt.Sprintf("%s %d", l.name, i+1), it)
		}
	}
	for i, a := range c.Artifacts {
		check(fmt.Sprintf("artifact %d (%s)", i+1, a.Label), a.Label+"\n"+a.Content)
	}
	return issues
}
