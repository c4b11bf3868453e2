package secrets

import (
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// TestStopWordsAgreeWithGitleaks checks the stop-word set against the
// allowlist it replaces, on values with and without a stop word, in any
// case, at the start, middle and end.
func TestStopWordsAgreeWithGitleaks(t *testing.T) {
	words := []string{"ab", "Example", "sample", "000000", "samplE", "xyz"}
	a := &config.Allowlist{StopWords: words}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	set := newStopWords(words)
	for _, v := range []string{"", "a", "AB", "q9ZaBq", "EXAMPLEkey", "keyexample", "k3yExAmPlE9", "samp", "sampl3",
		"x000000y", "00000", "xy", "XYZ", "zzzzzz", "7fG2kQ9vLm"} {
		want, _ := a.ContainsStopWord(v)
		if got := set.in(v); got != want {
			t.Errorf("%q: in %v, gitleaks %v", v, got, want)
		}
	}
	var none *stopWords
	if none.in("example") {
		t.Error("an empty set holds a word")
	}
}

// TestSplitStopWords checks which allowlists give up their stop words: one
// of stop words or expressions keeps its expressions, one of stop words
// only goes, one that also names paths stays whole.
func TestSplitStopWords(t *testing.T) {
	x := []*regexp.Regexp{regexp.MustCompile("^x$")}
	either := &config.Allowlist{StopWords: []string{"example"}, Regexes: x}
	only := &config.Allowlist{StopWords: []string{"sample"}}
	paths := &config.Allowlist{StopWords: []string{"test"}, Paths: x}
	out, set, err := splitStopWords([]*config.Allowlist{either, only, paths})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || len(out[0].StopWords) != 0 || len(out[0].Regexes) != 1 || out[1] != paths {
		t.Fatalf("allowlists left: %+v", out)
	}
	if !set.in("an-Example") || !set.in("sampled") || set.in("tested") {
		t.Fatalf("stop words: %+v", set)
	}
}
