package wire

// SecretPurgeRequest chooses what a purge removes from a space.
type SecretPurgeRequest struct {
	Rule        string `json:"rule" doc:"Purge every value this rule finds (as secrets scan names it: github-pat, aws-access-token, …)"`
	Fingerprint string `json:"fingerprint" doc:"Purge the one value with this fingerprint (16 hex digits, as secrets scan reports it); with rule, that value as found by that rule"`
	Full        bool   `json:"full,omitempty" doc:"Leave no old byte in the database's files even where that locks tables: on PostgreSQL the rewritten tables are copied into new files (VACUUM FULL; reads and writes of those tables wait while it runs); SQLite's file is always rebuilt. Runs even when nothing is found, to finish an earlier purge"`
}

// SecretAllowRequest names a value a space keeps although it looks like a
// secret.
type SecretAllowRequest struct {
	Rule        string `json:"rule" required:"true" doc:"The rule that finds the value"`
	Fingerprint string `json:"fingerprint" required:"true" doc:"The value's fingerprint (16 hex digits), as secrets scan and each redaction report it"`
}
