package app

import (
	"context"
	"fmt"

	"smriti"
	"smriti/secrets"
)

// Every text a user, an agent or a model writes passes redact before it is
// stored: a secret in it is replaced by a visible marker naming the rule that
// found it (see package secrets), and the answer lists what was replaced.
// Entry points never redact; the use cases here do, once.

// redactions collects what one write replaced. allow, when set, says
// whether the write's space keeps a value (its allowlist); it is asked
// only about what the detector found, so a write without secrets never
// reads the allowlist.
type redactions struct {
	found []smriti.Redaction
	allow func(rule, fingerprint string) bool
}

// text redacts *s in place and records each secret under field.
func (rs *redactions) text(field string, s *string) {
	if s == nil || *s == "" {
		return
	}
	found := secrets.Find(*s)
	if len(found) == 0 {
		return
	}
	if rs.allow != nil {
		kept := found[:0:0]
		for _, f := range found {
			if !rs.allow(f.Rule, f.Fingerprint) {
				kept = append(kept, f)
			}
		}
		found = kept
	}
	*s = secrets.Apply(*s, found)
	for _, f := range found {
		rs.found = append(rs.found, smriti.Redaction{Field: field, Rule: f.Rule, Fingerprint: f.Fingerprint})
	}
}

func (rs *redactions) list(field string, xs []string) {
	for i := range xs {
		rs.text(fmt.Sprintf("%s[%d]", field, i), &xs[i])
	}
}

// content redacts every text of a checkpoint's content, fields named as on
// the wire.
func (rs *redactions) content(c *smriti.Content) {
	rs.text("message", &c.Message)
	rs.text("objective", &c.Objective)
	rs.text("summary", &c.Summary)
	rs.list("decisions", c.Decisions)
	rs.list("assumptions", c.Assumptions)
	rs.list("open_questions", c.OpenQuestions)
	rs.list("entities", c.Entities)
	for i := range c.Tasks {
		rs.text(fmt.Sprintf("tasks[%d].text", i), &c.Tasks[i].Text)
		rs.text(fmt.Sprintf("tasks[%d].intent_hint", i), &c.Tasks[i].IntentHint)
	}
	for i := range c.Artifacts {
		rs.text(fmt.Sprintf("artifacts[%d].label", i), &c.Artifacts[i].Label)
		rs.text(fmt.Sprintf("artifacts[%d].content", i), &c.Artifacts[i].Content)
	}
}

// redactItems redacts the texts of proposed items. The content stays
// authoritative for them, and its redactions are the ones reported; a
// proposed item's text must not keep what the content lost.
func (rs *redactions) items(items []smriti.Item) {
	ignored := redactions{allow: rs.allow}
	for i := range items {
		ignored.text("", &items[i].Text)
		if t := items[i].Task; t != nil {
			ignored.text("", &t.Text)
			ignored.text("", &t.IntentHint)
		}
	}
}

// object redacts the strings of a free-form JSON object, at any depth.
func (rs *redactions) object(field string, m map[string]any) {
	for k, v := range m {
		m[k] = rs.value(field+"."+k, v)
	}
}

func (rs *redactions) value(field string, v any) any {
	switch x := v.(type) {
	case string:
		rs.text(field, &x)
		return x
	case map[string]any:
		rs.object(field, x)
	case []any:
		for i := range x {
			x[i] = rs.value(fmt.Sprintf("%s[%d]", field, i), x[i])
		}
	}
	return v
}

// redactText is text for a single field of a write to space (nil: a
// space not known yet, looked up only if a secret is found).
func (a *App) redactText(ctx context.Context, space func() (smriti.ID, error), field string, s *string) []smriti.Redaction {
	rs := redactions{allow: a.allowlist(ctx, space)}
	rs.text(field, s)
	return rs.found
}

// redactor is the redactions of a write to space, with its allowlist.
func (a *App) redactor(ctx context.Context, space smriti.ID) redactions {
	return redactions{allow: a.allowlist(ctx, func() (smriti.ID, error) { return space, nil })}
}

// withRedactions records, in a turn's metadata, the rules whose secrets were
// replaced in it (key "redactions": [{"rule": …, "fingerprint": …}]), so that whoever shows the
// turn can say so beside it; m is returned unchanged when none were.
func withRedactions(m map[string]any, rs []smriti.Redaction, field string) map[string]any {
	var rules []any
	for _, r := range rs {
		if r.Field == field {
			rules = append(rules, map[string]any{"rule": r.Rule, "fingerprint": r.Fingerprint})
		}
	}
	if len(rules) == 0 {
		return m
	}
	if m == nil {
		m = map[string]any{}
	}
	m["redactions"] = rules
	return m
}

// turnRedactions reads back what withRedactions recorded in a stored turn.
func turnRedactions(t *smriti.Turn, field string) []smriti.Redaction {
	if t == nil {
		return nil
	}
	rules, _ := t.Metadata["redactions"].([]any)
	var out []smriti.Redaction
	for _, r := range rules {
		if m, ok := r.(map[string]any); ok {
			if rule, ok := m["rule"].(string); ok {
				fp, _ := m["fingerprint"].(string)
				out = append(out, smriti.Redaction{Field: field, Rule: rule, Fingerprint: fp})
			}
		}
	}
	return out
}
