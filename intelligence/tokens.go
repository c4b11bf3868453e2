package intelligence

import "smriti/internal/estimate"

// TokenCounter counts tokens the way a model's tokenizer would. Every token
// count Smriti stores or budgets with comes from one: the per-turn count
// written with each turn, the history budget and the prompt total in the
// context preview.
type TokenCounter interface {
	// CountTokens returns how many tokens text encodes to for the model,
	// and whether the count is exact (the model's own tokenizer) rather
	// than EstimateTokens.
	CountTokens(provider, model, text string) (n int, exact bool)
}

// estimateCounter counts every model with EstimateTokens; it is what a
// Chat without a TokenCounter uses.
type EstimateCounter struct{}

// CountTokens implements TokenCounter.
func (EstimateCounter) CountTokens(_, _, text string) (int, bool) {
	return estimate.Tokens(text), false
}

// Per-message framing of a chat request, as OpenAI documents it for its
// chat models: each message costs MessageOverheadTokens beyond its content
// (role and separators) and the reply is primed with ReplyPrimingTokens.
// Other providers' framing is of the same order and is covered by the
// estimate's margin.
const (
	MessageOverheadTokens = 4
	ReplyPrimingTokens    = 3
)

// CountMessages counts the tokens of a whole provider conversation with
// counter (estimateCounter when nil).
func CountMessages(counter TokenCounter, provider, model string, msgs []Message) int {
	if counter == nil {
		counter = EstimateCounter{}
	}
	n := ReplyPrimingTokens
	for _, m := range msgs {
		c, _ := counter.CountTokens(provider, model, m.Content)
		n += c + MessageOverheadTokens
	}
	return n
}

// estimateMessages estimates the tokens of a whole provider conversation
// (CountMessages with estimateCounter).
func EstimateMessages(msgs []Message) int { return CountMessages(nil, "", "", msgs) }

// ReplyTokens is the reply reserve of a send: the max_tokens the provider
// is asked for, so what the history budget keeps free is exactly what the
// reply may use. It is defaultReplyTokens, cut to a quarter of windows too
// small for it.
func ReplyTokens(contextWindow int) int {
	return max(1, min(defaultReplyTokens, contextWindow/4))
}

// defaultReplyTokens caps a chat reply.
const defaultReplyTokens = 4096
