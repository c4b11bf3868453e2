package textutil

import (
	"strings"
	"unicode"
)

// danglingWords are the words a title must not end on: cut after one of
// them, a phrase reads unfinished ("We need to pick a").
var danglingWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "and": true, "or": true, "but": true,
	"with": true, "in": true, "on": true, "at": true, "by": true, "from": true, "into": true, "about": true, "as": true,
	"is": true, "are": true, "was": true, "were": true, "be": true, "we": true, "i": true, "you": true, "it": true,
	"that": true, "which": true, "this": true, "these": true, "our": true, "my": true, "your": true, "their": true,
	"its": true, "so": true, "if": true, "than": true, "then": true, "not": true, "no": true, "very": true,
	"should": true, "can": true, "will": true, "would": true, "could": true, "must": true, "do": true, "does": true,
}

// PhraseTitle names something after a text in at most limit characters, as
// a complete phrase: the first sentence of its first line of prose, whole
// when it fits; else cut at the last clause boundary (a comma, semicolon,
// colon or dash) that fits, or failing that at a word boundary, never after
// an article, preposition, conjunction or auxiliary, and marked with "…".
// "" for a text without words.
func PhraseTitle(text string, limit int) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*- ")); l != "" && !strings.HasPrefix(l, "```") {
			line = l
			break
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	if i := sentenceEnd(line); i > 0 {
		line = line[:i]
	}
	line = strings.TrimRight(line, ".!?;:, ")
	if len([]rune(line)) <= limit {
		return line
	}
	cut := []rune(line)[:limit-1]
	// A clause that fits, if it keeps at least half the room.
	if i := strings.LastIndexAny(string(cut), ",;:—–"); i >= 0 && len([]rune(string(cut)[:i])) >= limit/2 {
		if t := trimDangling(string(cut)[:i]); t != "" {
			return t
		}
	}
	words := strings.Fields(string(cut))
	if len(words) > 1 && !unicode.IsSpace([]rune(line)[limit-1]) {
		words = words[:len(words)-1] // the last word was cut in the middle
	}
	t := trimDangling(strings.Join(words, " "))
	if t == "" {
		return string(cut) + "…"
	}
	return t + "…"
}

// sentenceEnd is the index just past the first sentence's final mark, or 0
// when the text is one sentence.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' && i > 0 {
			return i + 1
		}
	}
	return 0
}

func trimDangling(s string) string {
	words := strings.Fields(strings.TrimRight(s, ",;:—– "))
	for len(words) > 0 && danglingWords[strings.ToLower(strings.Trim(words[len(words)-1], ",;:"))] {
		words = words[:len(words)-1]
	}
	return strings.TrimRight(strings.Join(words, " "), ",;:—– ")
}
