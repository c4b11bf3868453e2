package search_test

import (
	"smriti/search"
	"strings"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Night TRAIN", "night train"},
		{"café Zürich", "cafe zurich"},
		{`"quoted" OR NEAR(x*`, "quoted or near x"},
		{"a a A", "a"},
		{" ,, ", ""},
	}
	for _, c := range cases {
		if got := strings.Join(search.Terms(c.in), " "); got != c.want {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler ", 30) + "the decisive Café moment " + strings.Repeat("tail ", 30)
	cases := []struct {
		name, text, q, want string
	}{
		{"HighlightsEveryMatch", "Take the night train, then the night bus.", "night", "Take the <mark>night</mark> train, then the <mark>night</mark> bus."},
		{"FoldsCaseAndDiacritics", "Meet at the CAFÉ in Zürich", "cafe zurich", "Meet at the <mark>CAFÉ</mark> in <mark>Zürich</mark>"},
		{"CollapsesNewlines", "one\n\n  two   three", "two", "one <mark>two</mark> three"},
		{"NoMatchShowsTheStart", "alpha beta", "gamma", "alpha beta"},
		{"KeepsWhatPrecedesTheFirstWord", "“Fitzroy” is the pick", "pick", "“Fitzroy” is the <mark>pick</mark>"},
		{"KeepsALeadingHash", "  #42 needs a rerun", "rerun", "#42 needs a <mark>rerun</mark>"},
		{"WindowAroundFirstMatch", long, "cafe",
			"…filler filler filler filler filler filler the decisive <mark>Café</mark> moment tail tail tail tail tail tail tail tail tail tail tail tail tail tail…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := search.Snippet(c.text, search.Terms(c.q)); got != c.want {
				t.Fatalf("Snippet = %q\nwant       %q", got, c.want)
			}
		})
	}
}
