package portability

import (
	"smriti"
	"smriti/records"
	"smriti/secretlog"
)

// SecretGuard is a records.Writer at an exit — an export, a backup, a
// fetch answer, a push — that passes records on to Next only while they
// hold no secret. Everything written since redaction existed is redacted
// already; what it stops is a value that slipped in before (old data) or
// came in a way that kept it, refused with the commands that find and
// remove it. A value the space allows (Allowed) passes. With Next nil it
// only checks, so that an exit can refuse before it sends its first byte.
type SecretGuard struct {
	Next records.Writer
	// Space names the space in the refusal.
	Space smriti.ID
	// Exit names what was refused: "export", "backup", "push", …
	Exit    string
	Allowed func(rule, fingerprint string) bool
	scan    SecretScanner
}

func (g *SecretGuard) Write(rec records.BundleRecord) error {
	if g.scan.Found == nil {
		g.scan.Found = g.refuse
	}
	if err := g.scan.Write(rec); err != nil {
		return err
	}
	if g.Next == nil {
		return nil
	}
	return g.Next.Write(rec)
}

func (g *SecretGuard) refuse(f secretlog.StoredSecret) error {
	if g.Allowed != nil && g.Allowed(f.Rule, f.Fingerprint) {
		return nil
	}
	return smriti.Errorf(smriti.EUNPROCESSABLE,
		"%s refused: space %s still holds a secret stored before redaction (%s %s, %s, rule %s, fingerprint %s), and nothing leaves with a secret. "+
			"List every one with `smriti secrets scan --space %s`; remove them with `smriti secrets purge --space %s --rule %s` "+
			"(or keep a fake one with `smriti secrets allow %s %s --space %s`)",
		g.Exit, g.Space, f.Kind, f.ID, f.Field, f.Rule, f.Fingerprint, g.Space, g.Space, f.Rule, f.Rule, f.Fingerprint, g.Space)
}
