package app

import (
	"fmt"

	"smriti"
	"smriti/secrets"
)

// Every text a user, an agent or a model writes passes redact before it is
// stored: a secret in it is replaced by a visible marker naming the rule that
// found it (see package secrets), and the answer lists what was replaced.
// Entry points never redact; the use cases here do, once.

// redactions collects what one write replaced.
type redactions []smriti.Redaction

// text redacts *s in place and records each secret under field.
func (rs *redactions) text(field string, s *string) {
	if s == nil || *s == "" {
		return
	}
	out, found := secrets.Redact(*s)
	if len(found) == 0 {
		return
	}
	*s = out
	for _, f := range found {
		*rs = append(*rs, smriti.Redaction{Field: field, Rule: f.Rule})
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
func redactItems(items []smriti.Item) {
	var ignored redactions
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

// redactText is text for a single field.
func redactText(field string, s *string) []smriti.Redaction {
	var rs redactions
	rs.text(field, s)
	return rs
}

// withRedactions records, in a turn's metadata, the rules whose secrets were
// replaced in it (key "redactions": [{"rule": …}]), so that whoever shows the
// turn can say so beside it; m is returned unchanged when none were.
func withRedactions(m map[string]any, rs []smriti.Redaction, field string) map[string]any {
	var rules []any
	for _, r := range rs {
		if r.Field == field {
			rules = append(rules, map[string]any{"rule": r.Rule})
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
				out = append(out, smriti.Redaction{Field: field, Rule: rule})
			}
		}
	}
	return out
}
