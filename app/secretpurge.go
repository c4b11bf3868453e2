package app

import (
	"context"
	"strings"

	"smriti"
	"smriti/account"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/records"
	"smriti/secretlog"
	"smriti/secrets"
)

// PurgeSecrets removes a secret that was stored before redaction existed
// (or came in a bundle) from a space: every value the rule finds in what
// the space stores, or the one value with that fingerprint (both given:
// that value, found by that rule), replaced by the rule's marker wherever
// it is stored. Values on the space's allowlist are kept unless the
// fingerprint names them. The space's owner only; a token needs the admin
// scope. The purge is audited (who, when, what was chosen, which rows).
// ENOTFOUND for a space the caller may not see, EFORBIDDEN for one they do
// not own, EUNPROCESSABLE without a rule or fingerprint. Once it commits,
// the old bytes are removed from the database's files as well (see
// secretlog.SecretPurge.Erasure; full for PostgreSQL's VACUUM FULL).
func (a *App) PurgeSecrets(ctx context.Context, space smriti.ID, rule, fingerprint string, full bool) (*secretlog.SecretPurge, error) {
	by, err := a.secretAdmin(ctx, space, "purging secrets")
	if err != nil {
		return nil, err
	}
	rule, fingerprint = strings.TrimSpace(rule), strings.ToLower(strings.TrimSpace(fingerprint))
	if rule == "" && fingerprint == "" {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "say what to purge: a rule, a fingerprint or both (smriti secrets scan --space … lists them)")
	}
	if err := validSecretName(rule, fingerprint, fingerprint != ""); err != nil {
		return nil, err
	}
	allowed := map[string]bool{}
	if fingerprint == "" {
		list, err := a.store.SecretAllowlist(ctx, space)
		if err != nil {
			return nil, err
		}
		for _, al := range list {
			allowed[al.Rule+"/"+al.Fingerprint] = true
		}
	}
	find := func(text string) []secretlog.SecretMatch {
		var out []secretlog.SecretMatch
		for _, f := range secrets.Find(text) {
			if rule != "" && f.Rule != rule || fingerprint != "" && f.Fingerprint != fingerprint || allowed[f.Rule+"/"+f.Fingerprint] {
				continue
			}
			out = append(out, secretlog.SecretMatch{Value: text[f.Start:f.End], Rule: f.Rule, Replacement: secrets.Marker(f.Rule)})
		}
		return out
	}
	p, err := a.store.PurgeSecrets(ctx, secretlog.PurgeRequest{SpaceID: space, Rule: rule, Fingerprint: fingerprint, By: by, Find: find, Full: full})
	if err != nil {
		return nil, err
	}
	if p.Values > 0 {
		// Rendered state is cached by checkpoint hash, which a purge keeps.
		a.chat.cache.clear()
	}
	return p, nil
}

// secretAdmin checks the caller may purge or allow secrets in space (its
// owner; a token with the admin scope) and returns the name the audit
// records.
func (a *App) secretAdmin(ctx context.Context, space smriti.ID, what string) (string, error) {
	role, err := a.store.SpaceRole(ctx, space)
	if err != nil {
		return "", err
	}
	if err := role.Authorize(account.NeedAdmin); err != nil {
		return "", err
	}
	p := PrincipalOf(ctx)
	if p == nil {
		return smriti.LocalUsername, nil
	}
	if !p.Scope.Permits(account.NeedAdmin) {
		return "", smriti.Errorf(smriti.EFORBIDDEN, "%s needs a token with the admin scope or a browser session", what)
	}
	return p.Username, nil
}

// validSecretName checks a rule id and a fingerprint as secrets scan
// reports them.
func validSecretName(rule, fingerprint string, needFingerprint bool) error {
	if len(rule) > 100 || strings.ContainsAny(rule, " \t\n/") {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "rule: %q is not a rule id (secrets scan names them: github-pat, aws-access-token, …)", textutil.Truncate(rule, 40))
	}
	if !needFingerprint {
		return nil
	}
	if len(fingerprint) != 16 || strings.Trim(fingerprint, "0123456789abcdef") != "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "fingerprint: %q is not 16 hex digits as secrets scan reports them", textutil.Truncate(fingerprint, 40))
	}
	return nil
}

// AllowSecret keeps a value that only looks like a secret (a test
// fixture's fake key) in one space: every door lets it through there.
// Named by its rule and fingerprint, as secrets scan and each redaction
// report them; never a switch for a whole rule. The space's owner only.
func (a *App) AllowSecret(ctx context.Context, space smriti.ID, rule, fingerprint string) (*secretlog.SecretAllow, error) {
	by, err := a.secretAdmin(ctx, space, "allowing a secret")
	if err != nil {
		return nil, err
	}
	rule, fingerprint = strings.TrimSpace(rule), strings.ToLower(strings.TrimSpace(fingerprint))
	if rule == "" {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "rule is required: an allowlist entry names one value, by its rule and fingerprint")
	}
	if err := validSecretName(rule, fingerprint, true); err != nil {
		return nil, err
	}
	return a.store.AllowSecret(ctx, secretlog.SecretAllow{SpaceID: space, Rule: rule, Fingerprint: fingerprint, CreatedBy: by})
}

// SecretAllowlist lists the values a space keeps although they look like
// secrets, oldest first. ENOTFOUND for a space the caller may not see.
func (a *App) SecretAllowlist(ctx context.Context, space smriti.ID) ([]secretlog.SecretAllow, error) {
	return a.store.SecretAllowlist(ctx, space)
}

// RemoveSecretAllow takes a value off a space's allowlist: from then on
// every door redacts it again. The space's owner only; ENOTFOUND when it
// is not on the list.
func (a *App) RemoveSecretAllow(ctx context.Context, space smriti.ID, rule, fingerprint string) error {
	if _, err := a.secretAdmin(ctx, space, "changing the secret allowlist"); err != nil {
		return err
	}
	return a.store.RemoveSecretAllow(ctx, space, strings.TrimSpace(rule), strings.ToLower(strings.TrimSpace(fingerprint)))
}

// allowlist returns whether the space's allowlist keeps a value, asked
// lazily: the space (space()) and its list are read on the first question,
// which comes only when a write holds something that looks like a secret.
// A space that cannot be read allows nothing.
func (a *App) allowlist(ctx context.Context, space func() (smriti.ID, error)) func(rule, fingerprint string) bool {
	var allowed map[string]bool
	return func(rule, fingerprint string) bool {
		if allowed == nil {
			allowed = map[string]bool{}
			if id, err := space(); err == nil {
				if list, err := a.store.SecretAllowlist(ctx, id); err == nil {
					for _, al := range list {
						allowed[al.Rule+"/"+al.Fingerprint] = true
					}
				}
			}
		}
		return allowed[rule+"/"+fingerprint]
	}
}

// sessionSpace is the space of a session (ENOTFOUND for none).
func (a *App) sessionSpace(ctx context.Context, session smriti.ID) (smriti.ID, error) {
	se, err := a.store.Session(ctx, session)
	if err != nil {
		return smriti.NilID, err
	}
	if se.SpaceID == nil {
		return smriti.NilID, smriti.Errorf(smriti.ENOTFOUND, "the session has no space")
	}
	return *se.SpaceID, nil
}

// exitGuard is what stands at an exit of space (an export, a fetch
// answer, a push): the records pass to next only while they hold no secret
// the space does not allow; with next nil it only checks.
func (a *App) exitGuard(ctx context.Context, space smriti.ID, exit string, next records.Writer) *portability.SecretGuard {
	return &portability.SecretGuard{Next: next, Space: space, Exit: exit,
		Allowed: a.allowlist(ctx, func() (smriti.ID, error) { return space, nil })}
}
