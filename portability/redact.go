package portability

import (
	"regexp"
	"strings"
	"sync"
)

// secretPattern matches values that look like credentials; hints are
// substrings (lower case) one of which any match contains, checked first so
// that ordinary text is not run through every expression.
type secretPattern struct {
	hints []string
	re    *regexp.Regexp
}

// secretPatterns: provider key formats, bearer tokens, private key blocks.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	p := func(re string, hints ...string) secretPattern { return secretPattern{hints, regexp.MustCompile(re)} }
	return []secretPattern{
		p(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`, "-----begin"),
		p(`\b(sk|pk|rk)-[A-Za-z0-9_\-]{16,}`, "sk-", "pk-", "rk-"),
		p(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		p(`\bgithub_pat_[A-Za-z0-9_]{20,}`, "github_pat_"),
		p(`\bglpat-[A-Za-z0-9_\-]{16,}`, "glpat-"),
		p(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`, "akia", "asia"),
		p(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`, "xox"),
		p(`\bAIza[0-9A-Za-z_\-]{30,}`, "aiza"),
		p(`\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`, "eyj"),
		p(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/\-]{12,}=*`, "bearer", "basic"),
	}
})

// secretAssignment matches NAME=value, NAME: value and "NAME": "value" where
// the name says what holds a secret; the value is replaced, the name kept.
var secretAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)([A-Za-z0-9_\-]*(api[_\-]?key|secret|token|passw(or)?d|passwd|credential|private[_\-]?key|access[_\-]?key)[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']?)([^\s"',;]{4,})`)
})

var assignmentHints = []string{"key", "secret", "token", "passw", "credential"}

func hasAny(s string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// Redacted replaces every secret RedactSecrets finds.
const Redacted = "[REDACTED]"

// RedactSecrets replaces values that look like secrets with [REDACTED], so
// an imported tool call or message never stores a key it happened to show.
func RedactSecrets(s string) string {
	if s == "" {
		return s
	}
	lower := strings.ToLower(s)
	for _, p := range secretPatterns() {
		if hasAny(lower, p.hints) && p.re.MatchString(s) {
			s = p.re.ReplaceAllString(s, Redacted)
		}
	}
	re := secretAssignment()
	if hasAny(lower, assignmentHints) && re.MatchString(s) {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			if strings.HasPrefix(sub[4], "[REDACTED") || strings.HasPrefix(sub[4], "$") {
				return m // already redacted, or a variable reference
			}
			return sub[1] + Redacted
		})
	}
	return s
}
