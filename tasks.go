package smriti

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Task annotation values. An intent hint tells agents what kind of work a task
// is; a status is only "open" (the implicit default) or "done" — there is
// deliberately no "claimed" status, claims live beside checkpoints.
const (
	IntentImplement   = "implement"
	IntentReview      = "review"
	IntentInvestigate = "investigate"
	IntentDocs        = "docs"
	IntentTest        = "test"

	TaskOpen = "open"
	TaskDone = "done"
)

// ValidIntent reports whether s (already trimmed and lower-cased) is one of
// the five intent hints.
func ValidIntent(s string) bool {
	switch s {
	case IntentImplement, IntentReview, IntentInvestigate, IntentDocs, IntentTest:
		return true
	}
	return false
}

// NormalizeTasks turns the tasks a model (or a client) produced into clean
// structured tasks, as drafts and extracts store them.
//
// Each raw item is a string or an object (map[string]any, as encoding/json
// decodes it) with a string "text". Items that are neither, or whose text is
// blank, are skipped. Annotations survive only when valid: id and blocked_by
// when non-blank strings (trimmed), intent_hint when one of the five intents
// (stored lower-case), status when "open" or "done"; anything else — other
// keys, nulls, wrong types — is dropped rather than failing the whole list.
// Duplicates by trimmed text are dropped, first occurrence wins. The output is
// never nil and every task has Structured set, so it is written as an object.
func NormalizeTasks(raw []any) []Task {
	out := []Task{}
	seen := map[string]bool{}
	for _, item := range raw {
		var t Task
		switch v := item.(type) {
		case string:
			t.Text = strings.TrimSpace(v)
		case Task:
			t = v
			t.Text = strings.TrimSpace(v.Text)
			t = cleanTaskAnnotations(t)
		case map[string]any:
			text, _ := v["text"].(string)
			t.Text = strings.TrimSpace(text)
			t.ID = stringField(v, "id")
			t.IntentHint = strings.ToLower(stringField(v, "intent_hint"))
			t.BlockedBy = blockersField(v, "blocked_by")
			t.Status = strings.ToLower(stringField(v, "status"))
			t = cleanTaskAnnotations(t)
		default:
			continue
		}
		if t.Text == "" || seen[t.Text] {
			continue
		}
		seen[t.Text] = true
		t.Structured = true
		out = append(out, t)
	}
	return out
}

// cleanTasks tidies the tasks a client wrote with a checkpoint, keeping each
// task's form: a plain string stays a string, an object stays an object.
// Text and annotations are trimmed, an intent hint outside the five is
// dropped (and a valid one lower-cased), a status is lower-cased, blank
// tasks and repeated texts (first wins) are dropped. Status values are
// validated by the caller before (a bad status is an error on a write,
// not something to drop silently). The result is never nil.
func cleanTasks(tasks []Task) []Task {
	out := make([]Task, 0, len(tasks))
	seen := map[string]bool{}
	for _, t := range tasks {
		structured := t.Structured
		t.Text = strings.TrimSpace(t.Text)
		t = cleanTaskAnnotations(t)
		t.Structured = structured
		if t.Text == "" || seen[t.Text] {
			continue
		}
		seen[t.Text] = true
		out = append(out, t)
	}
	return out
}

// cleanTaskAnnotations trims annotations and drops the invalid ones.
func cleanTaskAnnotations(t Task) Task {
	t.ID = strings.TrimSpace(t.ID)
	t.BlockedBy = cleanBlockers(t.BlockedBy)
	t.IntentHint = strings.ToLower(strings.TrimSpace(t.IntentHint))
	if !ValidIntent(t.IntentHint) {
		t.IntentHint = ""
	}
	t.Status = strings.ToLower(strings.TrimSpace(t.Status))
	if t.Status != TaskOpen && t.Status != TaskDone {
		t.Status = ""
	}
	return t
}

// cleanBlockers trims each blocker id and drops blanks and repeats; nil when
// none is left.
func cleanBlockers(bs Blockers) Blockers {
	var out Blockers
	seen := map[string]bool{}
	for _, b := range bs {
		b = strings.TrimSpace(b)
		if b == "" || seen[b] {
			continue
		}
		seen[b] = true
		out = append(out, b)
	}
	return out
}

// blockersField reads m[key] as one id (a string) or several (a list of
// strings, non-strings skipped).
func blockersField(m map[string]any, key string) Blockers {
	switch v := m[key].(type) {
	case string:
		return Blockers{v}
	case []any:
		var out Blockers
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return Blockers(v)
	}
	return nil
}

// stringField returns m[key] trimmed when it is a string, else "".
func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

// Display writes the task as one line of text for prompts and terminals:
//
//	text [intent] (id: x) (status) → blocked by: y
//
// Absent annotations are omitted, so a plain task renders as its text. It
// never prints a raw object (the first implementation leaked Python dict
// reprs into prompts this way).
func (t Task) Display() string {
	var b strings.Builder
	b.WriteString(t.Text)
	if t.IntentHint != "" {
		fmt.Fprintf(&b, " [%s]", t.IntentHint)
	}
	if t.ID != "" {
		fmt.Fprintf(&b, " (id: %s)", t.ID)
	}
	if t.Status != "" {
		fmt.Fprintf(&b, " (%s)", t.Status)
	}
	if len(t.BlockedBy) > 0 {
		fmt.Fprintf(&b, " → blocked by: %s", t.BlockedBy)
	}
	return b.String()
}

// Key is the key a task is claimed by: its id, else a hash of its
// normalised text.
func (t Task) Key() string {
	if id := strings.TrimSpace(t.ID); id != "" {
		return id
	}
	h := sha256.Sum256([]byte(NormalizeItem(t.Text)))
	return "h-" + hex.EncodeToString(h[:4])
}

// TaskTexts returns the text of each task, in order; annotations are ignored
// (compare matches tasks by text only).
func (c *Content) TaskTexts() []string {
	out := make([]string, 0, len(c.Tasks))
	for _, t := range c.Tasks {
		out = append(out, t.Text)
	}
	return out
}
