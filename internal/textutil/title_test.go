package textutil

import "testing"

func TestPhraseTitle(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"WholeSentenceWhenItFits", "We need to pick a database for the new service.", "We need to pick a database for the new service"},
		{"FirstSentenceOnly", "Plan the Australia trip. We have two weeks in March.", "Plan the Australia trip"},
		{"CutAtAClause", "We need to pick a database for the new service, probably PostgreSQL or SQLite", "We need to pick a database for the new service"},
		{"NeverEndsOnAnArticle", "We need to pick a sufficiently reliable and cheap database engine quickly", "We need to pick a sufficiently reliable and cheap…"},
		{"SkipsMarkdownAndBlankLines", "\n\n## Seat pricing for teams\nmore", "Seat pricing for teams"},
		{"NoWords", "   \n ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PhraseTitle(tc.in, 50); got != tc.want {
				t.Fatalf("PhraseTitle(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
