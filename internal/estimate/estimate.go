// Package estimate counts tokens without a tokenizer: a cheap, deterministic
// estimate that errs high.
package estimate

import (
	"unicode"
	"unicode/utf8"
)

// MarginPercent is the safety margin Tokens adds on top of
// its per-character heuristic. The heuristic alone was fitted to BPE
// tokenizers (OpenAI's cl100k_base and o200k_base) over English prose, Go
// code, JSON, UUIDs, Chinese, Hindi and emoji; with the margin it does not
// undercount them on that corpus (the tokenizer package's
// TestCorpusEstimateMargin). Tokenizers of other vendors differ; the margin
// is what absorbs that.
const MarginPercent = 15

// Tokens is a cheap, deterministic, deliberately high token
// estimate for models whose tokenizer is not at hand: the heuristic count
// (rawEstimate) plus MarginPercent, rounded up. It is used for
// budgeting and never billed.
func Tokens(s string) int {
	raw := rawEstimate(s)
	return (raw*(100+MarginPercent) + 99) / 100
}

// rawEstimate counts the pieces a byte-pair tokenizer splits text into:
// a run of ASCII letters costs one token per four letters (rounded up), a
// run of digits one per three, each punctuation mark one, a run of two or
// more spaces one per four, each line break or tab run one; outside ASCII
// each character costs one token per two bytes of its UTF-8 form (rounded
// up: two for most CJK and Indic characters, two for an emoji), and
// combining marks and joiners one.
func rawEstimate(s string) int {
	n := 0
	letters, digits, spaces := 0, 0, 0
	flush := func() {
		n += (letters+3)/4 + (digits+2)/3
		if spaces > 1 {
			n += (spaces + 3) / 4
		}
		letters, digits, spaces = 0, 0, 0
	}
	prevBreak := false
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			if digits > 0 || spaces > 0 {
				flush()
			}
			letters++
			prevBreak = false
		case r >= '0' && r <= '9':
			if letters > 0 || spaces > 0 {
				flush()
			}
			digits++
			prevBreak = false
		case r == ' ':
			if letters > 0 || digits > 0 {
				flush()
			}
			spaces++
			prevBreak = false
		case r == '\n' || r == '\r' || r == '\t':
			flush()
			if !prevBreak {
				n++
			}
			prevBreak = true
		case r < utf8.RuneSelf:
			flush()
			n++
			prevBreak = false
		default:
			flush()
			if unicode.Is(unicode.Mn, r) || r == '\u200d' || unicode.Is(unicode.Variation_Selector, r) {
				n++
			} else {
				n += (utf8.RuneLen(r) + 1) / 2
			}
			prevBreak = false
		}
	}
	flush()
	return n
}
