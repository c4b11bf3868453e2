package smriti

// Redaction is a secret that was replaced before it was stored: the field it
// was in and the rule that found it. The value is never kept; the stored
// text holds a visible marker in its place ("[redacted: github-pat]").
// Answers to writes carry the redactions they made, so that nothing is
// replaced silently.
type Redaction struct {
	Field string `json:"field" doc:"Where the secret was: a field of the request (message, summary, decisions[2], artifacts[0].content, reply, …)"`
	Rule  string `json:"rule" doc:"The detection rule that found it (github-pat, aws-access-token, connection-string-password, …); the marker left in the text names it too"`
	// Fingerprint names the value without holding it, so that a value
	// that only looks like a secret can be allowed in its space.
	Fingerprint string `json:"fingerprint,omitempty" doc:"The first 16 hex digits of the secret's SHA-256: what smriti secrets allow takes to keep a value that only looks like a secret"`
}
