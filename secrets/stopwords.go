package secrets

import (
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// stopWords are a rule's stop words: a finding whose secret holds one,
// in any case, is dropped. gitleaks keeps them in an Aho-Corasick trie of
// 2 KB a state, some 9 MB for generic-api-key's 1,500 words, live as long
// as the server; here they take their own few kilobytes, indexed by their
// first bytes.
type stopWords struct {
	byPrefix map[string][]string
	// short are the words shorter than the index's prefix.
	short []string
}

// stopPrefix is how many leading bytes index a stop word.
const stopPrefix = 3

func newStopWords(words []string) *stopWords {
	w := &stopWords{byPrefix: map[string][]string{}}
	seen := map[string]bool{}
	for _, x := range words {
		x = strings.ToLower(x)
		switch {
		case x == "" || seen[x]:
			continue
		case len(x) < stopPrefix:
			w.short = append(w.short, x)
		default:
			w.byPrefix[x[:stopPrefix]] = append(w.byPrefix[x[:stopPrefix]], x)
		}
		seen[x] = true
	}
	return w
}

// in says whether s, lower-cased, holds one of the words (as gitleaks'
// Allowlist.ContainsStopWord does).
func (w *stopWords) in(s string) bool {
	if w == nil || s == "" {
		return false
	}
	s = strings.ToLower(s)
	for _, x := range w.short {
		if strings.Contains(s, x) {
			return true
		}
	}
	for i := 0; i+stopPrefix <= len(s); i++ {
		for _, x := range w.byPrefix[s[i:i+stopPrefix]] {
			if strings.HasPrefix(s[i:], x) {
				return true
			}
		}
	}
	return false
}

// splitStopWords takes the stop words out of a rule's allowlists: each
// allowlist that drops a finding on a stop word or on an expression (either
// one) keeps its expressions, and its stop words go to the set the rule's
// run checks itself (ruleScan.run). A finding is dropped when any
// allowlist drops it, so what is dropped is the same; the stop words are
// checked first, in one pass over the secret, where generic-api-key's
// expression, case-insensitive and hundreds of alternatives long, costs
// about 0.1 ms per finding. An allowlist that also asks for a commit or a
// path, or for all of its conditions at once, is left whole.
func splitStopWords(lists []*config.Allowlist) ([]*config.Allowlist, *stopWords, error) {
	var out []*config.Allowlist
	var words []string
	for _, a := range lists {
		if len(a.StopWords) == 0 || len(a.Commits) > 0 || len(a.Paths) > 0 || a.MatchCondition == config.AllowlistMatchAnd {
			out = append(out, a)
			continue
		}
		words = append(words, a.StopWords...)
		if len(a.Regexes) == 0 {
			continue
		}
		exprs := &config.Allowlist{Description: a.Description, RegexTarget: a.RegexTarget, Regexes: a.Regexes}
		if err := exprs.Validate(); err != nil {
			return nil, nil, err
		}
		out = append(out, exprs)
	}
	if len(words) == 0 {
		return out, nil, nil
	}
	return out, newStopWords(words), nil
}
