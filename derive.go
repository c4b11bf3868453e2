package smriti

// DeriveStructuredReply is what the deterministic offline mock answers to a
// structured-output request (req.Schema set): JSON text valid for that schema
// and derived from the data in the request's messages, so tests can tell
// which turns or which document were used.
func DeriveStructuredReply(req CompletionRequest) string {
	return deriveStructuredReply(req)
}

// deriveStructuredReply is a placeholder until the checkpoint-intelligence
// logic lands.
func deriveStructuredReply(req CompletionRequest) string { return "{}" }
