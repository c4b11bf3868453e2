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

// StoredSecret is a secret found in something already stored (written
// before redaction existed, or imported): where it is and which rule found
// it. The value itself is never reported; its fingerprint (the first 16 hex
// digits of its SHA-256) tells two findings of one value apart.
type StoredSecret struct {
	SpaceID     ID     `json:"space_id" doc:"The space"`
	Kind        string `json:"kind" enum:"turn,checkpoint,note,claim,proposal,session" doc:"What holds it: a turn, a checkpoint's content, a note, a claim's scope, a proposal's draft or a session's title"`
	ID          ID     `json:"id" doc:"The turn, checkpoint, note, claim, proposal or session"`
	Field       string `json:"field" doc:"The field: content, summary, decisions[2], artifacts[0].content, text, scope, …"`
	Rule        string `json:"rule" doc:"The detection rule that found it"`
	Fingerprint string `json:"fingerprint" doc:"The first 16 hex digits of the secret's SHA-256: names the value without holding it"`
}

// SecretScan is what a scan read: how many of each kind of record, across
// how many spaces, and how many secrets it found in them.
type SecretScan struct {
	Spaces      int `json:"spaces" doc:"Spaces scanned"`
	Checkpoints int `json:"checkpoints" doc:"Checkpoints scanned (their content and notes)"`
	Sessions    int `json:"sessions" doc:"Sessions scanned (their titles)"`
	Turns       int `json:"turns" doc:"Turns scanned"`
	Claims      int `json:"claims" doc:"Claims scanned"`
	Proposals   int `json:"proposals" doc:"Proposals scanned"`
	Found       int `json:"found" doc:"Secrets found"`
}
