package smriti

import "smriti/internal/estimate"

// TokenCount is the token count of a turn's content: the count stored at
// write time, or an estimate for turns stored without one.
func (t *Turn) TokenCount() int {
	if t.Tokens > 0 {
		return t.Tokens
	}
	return estimate.Tokens(t.Content)
}
