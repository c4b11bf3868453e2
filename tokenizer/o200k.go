package tokenizer

import "smriti"

// CountO200K counts text with O200K, the encoding the brief's "~N tokens"
// line, the state's brief_tokens and `smriti prime` report. Should the
// encoding fail to load it falls back to smriti.EstimateTokens.
func CountO200K(text string) int {
	n, err := Count(O200K, text)
	if err != nil {
		return smriti.EstimateTokens(text)
	}
	return n
}
