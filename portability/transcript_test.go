package portability_test

import (
	"os"
	"smriti/portability"
	"strings"
	"testing"

	"smriti"
)

type readConv struct {
	conv *portability.Conversation
	err  error
}

func readFile(t *testing.T, name string) []readConv {
	t.Helper()
	f, err := os.Open("testdata/transcripts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readConv
	if err := portability.ReadTranscripts(f, name, func(i int, c *portability.Conversation, err error) error {
		if i != len(out) {
			t.Fatalf("conversation index %d, want %d", i, len(out))
		}
		out = append(out, readConv{c, err})
		return nil
	}); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return out
}

func turnsOf(c *portability.Conversation) []string {
	var out []string
	for _, t := range c.Turns {
		out = append(out, t.Role+": "+t.Content)
	}
	return out
}

func TestReadTranscripts(t *testing.T) {
	cases := []struct {
		file   string
		titles []string // "" for a conversation that fails
		errs   []string // substring of the error, "" when it parses
		turns  map[int][]string
		source string
	}{
		{
			file:   "chatgpt-conversations.json",
			source: portability.SourceChatGPT,
			titles: []string{"Trip to Zürich ☕", "", "Empty chat", "Tool call and code"},
			errs:   []string{"", "malformed ChatGPT conversation: mapping should be", "", ""},
			turns: map[int][]string{
				// The branch that was regenerated away is not kept; the
				// hidden system message is not either.
				0: {"user: Grüezi! Plan two days in Zürich — café first?",
					"assistant: Day one: the lake and a café on Niederdorfstrasse.\nDay two: Üetliberg.",
					"user: Danke — book the café for 9:00."},
				2: nil,
				3: {"user: What is 2+2?", "assistant: 4"},
			},
		},
		{
			file:   "claude-conversations.json",
			source: portability.SourceClaude,
			titles: []string{"Naming the 東京 project", "", ""},
			errs:   []string{"", `message 0 has sender "robot"`, ""},
			turns: map[int][]string{
				0: {"user: Suggest a name for the 東京 office project.", "assistant: How about \"Sakura\"?"},
				2: nil,
			},
		},
		{
			file:   "headings.md",
			source: portability.SourceMarkdown,
			titles: []string{"Choosing a database"},
			errs:   []string{""},
			turns: map[int][]string{0: {
				"user: Should we use SQLite or Postgres for the naïve prototype?",
				"assistant: SQLite first: one file, no server.\n\nIt is enough until several replicas share state.",
				"user: And later?",
				"assistant: Move to PostgreSQL; keep the SQL portable."}},
		},
		{
			file:   "colons.txt",
			source: portability.SourceMarkdown,
			titles: []string{"colons"},
			errs:   []string{""},
			turns: map[int][]string{0: {
				`user: Wie sagt man "thank you" auf Deutsch?`,
				`assistant: "Danke" — or "Vielen Dank" for more emphasis.`,
				"user: And in Japanese?",
				"assistant: ありがとう (arigatō)."}},
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := readFile(t, c.file)
			if len(got) != len(c.titles) {
				t.Fatalf("%d conversations, want %d", len(got), len(c.titles))
			}
			for i, g := range got {
				if c.errs[i] != "" {
					if g.err == nil || !strings.Contains(g.err.Error(), c.errs[i]) || g.conv != nil {
						t.Fatalf("conversation %d: err = %v, want one containing %q", i, g.err, c.errs[i])
					}
					continue
				}
				if g.err != nil {
					t.Fatalf("conversation %d: %v", i, g.err)
				}
				if g.conv.Title != c.titles[i] || g.conv.Source != c.source {
					t.Fatalf("conversation %d: title %q source %q", i, g.conv.Title, g.conv.Source)
				}
				if want := c.turns[i]; strings.Join(turnsOf(g.conv), "|") != strings.Join(want, "|") {
					t.Fatalf("conversation %d turns:\n%q\nwant\n%q", i, turnsOf(g.conv), want)
				}
			}
		})
	}
}

func TestTranscriptTimesAndHash(t *testing.T) {
	got := readFile(t, "chatgpt-conversations.json")
	c := got[0].conv
	if c.CreatedAt == nil || c.CreatedAt.Format("2006-01-02T15:04:05.000000Z07:00") != "2024-03-01T09:30:00.123456Z" {
		t.Fatalf("created_at = %v", c.CreatedAt)
	}
	if ts := c.Turns[0].CreatedAt; ts == nil || ts.Format("15:04:05.000") != "09:30:01.500" {
		t.Fatalf("first turn time = %v", ts)
	}
	again := readFile(t, "chatgpt-conversations.json")[0].conv
	if c.ContentHash() != again.ContentHash() || len(c.ContentHash()) != 64 {
		t.Fatal("content hash not stable")
	}
	again.Turns[2].Content += "!"
	if c.ContentHash() == again.ContentHash() {
		t.Fatal("content hash ignores an edited turn")
	}
	claude := readFile(t, "claude-conversations.json")[0].conv
	if ts := claude.Turns[1].CreatedAt; ts == nil || ts.Format("15:04:05.00") != "10:00:09.25" {
		t.Fatalf("claude turn time = %v", ts)
	}
}

func TestReadTranscriptsRefusesWholeFile(t *testing.T) {
	cases := map[string]string{
		"empty":             "   \n",
		"unterminated JSON": `[{"mapping": {}}, {"mapping": `,
		"no speakers":       "just some notes\nwith no speaker lines",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			var perr error
			err := portability.ReadTranscripts(strings.NewReader(body), "x.md", func(i int, c *portability.Conversation, err error) error {
				perr = err
				return nil
			})
			if err == nil && perr == nil {
				t.Fatal("no error")
			}
			code := smriti.ErrorCode(err)
			if err == nil {
				code = smriti.ErrorCode(perr)
			}
			if code != smriti.EINVALID && code != smriti.EUNPROCESSABLE {
				t.Fatalf("code %q (%v)", code, err)
			}
		})
	}
}
