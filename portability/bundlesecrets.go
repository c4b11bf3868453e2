package portability

import (
	"fmt"

	"smriti"
	"smriti/records"
	"smriti/secrets"
)

// importGate keeps secrets out of what a bundle import stores. What no hash
// covers (turns, notes, claim scopes) is redacted as any write is; a
// checkpoint's content is covered by its hash and cannot be rewritten
// without breaking the chain, so a checkpoint that holds a secret refuses
// the import, naming where it is.
type importGate struct{ records.Reader }

func (g importGate) Next() (*records.BundleRecord, error) {
	rec, err := g.Reader.Next()
	if err != nil || rec == nil {
		return rec, err
	}
	switch {
	case rec.Turn != nil:
		rec.Turn.Content = redactSecrets(rec.Turn.Content)
	case rec.Claim != nil:
		rec.Claim.Scope = redactSecrets(rec.Claim.Scope)
	case rec.Checkpoint != nil:
		c := rec.Checkpoint
		for i := range c.Notes {
			c.Notes[i].Text = redactSecrets(c.Notes[i].Text)
		}
		if field, rule := checkpointSecret(c); rule != "" {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE,
				"the bundle's checkpoint %s holds a secret in %s (%s): a checkpoint's hash covers its content, so it cannot be redacted on import; "+
					"remove the secret where the bundle was made (smriti secrets scan finds it) and export again", c.ID, field, rule)
		}
	}
	return rec, nil
}

// checkpointSecret names the first field of c that holds a secret, and the
// rule that found it ("" when none does).
func checkpointSecret(c *records.BundleCheckpoint) (field, rule string) {
	check := func(name, text string) bool {
		if fs := secrets.Find(text); len(fs) > 0 {
			field, rule = name, fs[0].Rule
			return true
		}
		return false
	}
	list := func(name string, xs []string) bool {
		for i, x := range xs {
			if check(fmt.Sprintf("%s[%d]", name, i), x) {
				return true
			}
		}
		return false
	}
	_ = check("message", c.Message) || check("objective", c.Objective) || check("summary", c.Summary) ||
		list("decisions", c.Decisions) || list("assumptions", c.Assumptions) ||
		list("open_questions", c.OpenQuestions) || list("entities", c.Entities) ||
		func() bool {
			for i, t := range c.Tasks {
				if check(fmt.Sprintf("tasks[%d].text", i), t.Text) {
					return true
				}
			}
			for i, a := range c.Artifacts {
				if check(fmt.Sprintf("artifacts[%d].content", i), a.Content) {
					return true
				}
			}
			return c.RawSourceText != nil && check("raw_source_text", *c.RawSourceText)
		}()
	return field, rule
}
