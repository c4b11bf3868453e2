package wire

// SecretPurgeRequest chooses what a purge removes from a space.
type SecretPurgeRequest struct {
	Rule        string `json:"rule" doc:"Purge every value this rule finds (as secrets scan names it: github-pat, aws-access-token, …)"`
	Fingerprint string `json:"fingerprint" doc:"Purge the one value with this fingerprint (16 hex digits, as secrets scan reports it); with rule, that value as found by that rule"`
}

// SecretAllowRequest names a value a space keeps although it looks like a
// secret.
type SecretAllowRequest struct {
	Rule        string `json:"rule" required:"true" doc:"The rule that finds the value"`
	Fingerprint string `json:"fingerprint" required:"true" doc:"The value's fingerprint (16 hex digits), as secrets scan and each redaction report it"`
}
