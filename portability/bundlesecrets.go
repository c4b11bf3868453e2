package portability

import (
	"fmt"

	"smriti"
	"smriti/records"
	"smriti/secretlog"
	"smriti/secrets"
)

// importGate keeps secrets out of what a bundle import stores. What no hash
// covers (session titles, turns, notes, claim scopes) is redacted as any write is; a
// checkpoint's content is covered by its hash and cannot be rewritten
// without breaking the chain, so a checkpoint that holds a secret refuses
// the import, naming where it is.
//
// Values on the allowlist the bundle's space carries pass, as they passed
// its export.
type importGate struct {
	records.Reader
	allowed map[string]bool
}

// find is the secrets in text the space does not allow.
func (g *importGate) find(text string) []secrets.Finding {
	fs := secrets.Find(text)
	kept := fs[:0]
	for _, f := range fs {
		if !g.allowed[f.Rule+"/"+f.Fingerprint] {
			kept = append(kept, f)
		}
	}
	return kept
}

// LastSize is the size of the record Next returned last, when the reader
// knows it (0 when not).
func (g *importGate) LastSize() int {
	if sr, ok := g.Reader.(records.SizedReader); ok {
		return sr.LastSize()
	}
	return 0
}

func (g *importGate) redact(text string) string { return secrets.Apply(text, g.find(text)) }

func (g *importGate) Next() (*records.BundleRecord, error) {
	rec, err := g.Reader.Next()
	if err != nil || rec == nil {
		return rec, err
	}
	switch {
	case rec.Space != nil:
		g.allowed = map[string]bool{}
		for _, a := range rec.Space.AllowedSecrets {
			g.allowed[a.Rule+"/"+a.Fingerprint] = true
		}
	case rec.Session != nil:
		rec.Session.Title = g.redact(rec.Session.Title)
	case rec.Turn != nil:
		rec.Turn.Content = g.redact(rec.Turn.Content)
	case rec.Claim != nil:
		rec.Claim.Scope = g.redact(rec.Claim.Scope)
	case rec.Checkpoint != nil:
		c := rec.Checkpoint
		for i := range c.Notes {
			c.Notes[i].Text = g.redact(c.Notes[i].Text)
		}
		var first *secretlog.StoredSecret
		checkpointTexts(c, func(field textField, text string) {
			if fs := g.find(text); first == nil && len(fs) > 0 {
				first = &secretlog.StoredSecret{Field: field.String(), Rule: fs[0].Rule}
			}
		})
		if first != nil {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE,
				"the bundle's checkpoint %s holds a secret in %s (%s): a checkpoint's hash covers its content, so it cannot be redacted on import; "+
					"remove the secret where the bundle was made (smriti secrets scan finds it) and export again", c.ID, first.Field, first.Rule)
		}
	}
	return rec, nil
}

// checkpointTexts calls fn with each text of a checkpoint's content that its
// hash covers and the field that holds it, named as on the wire.
func checkpointTexts(c *records.BundleCheckpoint, fn func(field textField, text string)) {
	fn(textField{name: "message"}, c.Message)
	fn(textField{name: "objective"}, c.Objective)
	fn(textField{name: "summary"}, c.Summary)
	for _, l := range []struct {
		name string
		xs   []string
	}{{"decisions", c.Decisions}, {"assumptions", c.Assumptions}, {"open_questions", c.OpenQuestions}, {"entities", c.Entities}} {
		for i, x := range l.xs {
			fn(textField{name: l.name, index: i, listed: true}, x)
		}
	}
	for i, t := range c.Tasks {
		fn(textField{name: "tasks", index: i, listed: true, sub: "text"}, t.Text)
		fn(textField{name: "tasks", index: i, listed: true, sub: "intent_hint"}, t.IntentHint)
	}
	for i, a := range c.Artifacts {
		fn(textField{name: "artifacts", index: i, listed: true, sub: "label"}, a.Label)
		fn(textField{name: "artifacts", index: i, listed: true, sub: "content"}, a.Content)
	}
	if c.RawSourceText != nil {
		fn(textField{name: "raw_source_text"}, *c.RawSourceText)
	}
}

// textField names a text of a checkpoint — summary, decisions[2],
// tasks[0].text — spelled out only when a secret is found in it.
type textField struct {
	name   string
	index  int
	listed bool
	sub    string
}

func (f textField) String() string {
	if !f.listed {
		return f.name
	}
	if f.sub == "" {
		return fmt.Sprintf("%s[%d]", f.name, f.index)
	}
	return fmt.Sprintf("%s[%d].%s", f.name, f.index, f.sub)
}

// SecretScanner is a records.Writer that, instead of writing a space's
// records, looks for secrets in them: a space exported into it is scanned
// from one consistent snapshot, record by record, without holding more than
// one in memory. Found is called for each secret as it is found.
type SecretScanner struct {
	Found func(secretlog.StoredSecret) error
	// Read counts what was scanned.
	Read  secretlog.SecretScan
	space smriti.ID
}

func (s *SecretScanner) Write(rec records.BundleRecord) error {
	report := func(kind string, id smriti.ID, field textField, text string) error {
		for _, f := range secrets.Find(text) {
			s.Read.Found++
			if err := s.Found(secretlog.StoredSecret{SpaceID: s.space, Kind: kind, ID: id, Field: field.String(), Rule: f.Rule, Fingerprint: f.Fingerprint}); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case rec.Space != nil:
		s.space = rec.Space.ID
		s.Read.Spaces++
	case rec.Checkpoint != nil:
		c := rec.Checkpoint
		s.Read.Checkpoints++
		var err error
		checkpointTexts(c, func(field textField, text string) {
			if err == nil {
				err = report("checkpoint", c.ID, field, text)
			}
		})
		for _, n := range c.Notes {
			if err == nil {
				err = report("note", n.ID, textField{name: "text"}, n.Text)
			}
		}
		return err
	case rec.Session != nil:
		s.Read.Sessions++
		return report("session", rec.Session.ID, textField{name: "title"}, rec.Session.Title)
	case rec.Turn != nil:
		s.Read.Turns++
		return report("turn", rec.Turn.ID, textField{name: "content"}, rec.Turn.Content)
	case rec.Claim != nil:
		s.Read.Claims++
		return report("claim", rec.Claim.ID, textField{name: "scope"}, rec.Claim.Scope)
	case rec.Proposal != nil:
		s.Read.Proposals++
		if err := report("proposal", rec.Proposal.ID, textField{name: "title"}, rec.Proposal.Title); err != nil {
			return err
		}
		return report("proposal", rec.Proposal.ID, textField{name: "draft"}, string(rec.Proposal.Draft))
	}
	return nil
}
