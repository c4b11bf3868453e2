package coderef

import (
	"testing"

	"smriti"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		in, path string
		lines    *smriti.LineRange
		bad      bool
	}{
		{in: "cli/hooks.go", path: "cli/hooks.go"},
		{in: "./cli/hooks.go:293", path: "cli/hooks.go", lines: &smriti.LineRange{From: 293, To: 293}},
		{in: "a.go:3-9", path: "a.go", lines: &smriti.LineRange{From: 3, To: 9}},
		{in: "a.go:9-3", bad: true},
		{in: "a.go:0", bad: true},
		{in: "a.go:", bad: true},
		{in: "a.go:x", bad: true},
		{in: "/etc/passwd", bad: true},
		{in: "../up.go", bad: true},
		{in: "a/../b.go", bad: true},
		{in: "", bad: true},
	} {
		p, l, err := ParseSpec(tc.in)
		if tc.bad {
			if err == nil || smriti.ErrorCode(err) != smriti.EINVALID {
				t.Errorf("ParseSpec(%q) = %q, %v, %v; want EINVALID", tc.in, p, l, err)
			}
			continue
		}
		if err != nil || p != tc.path || (l == nil) != (tc.lines == nil) || l != nil && *l != *tc.lines {
			t.Errorf("ParseSpec(%q) = %q, %v, %v; want %q, %v", tc.in, p, l, err, tc.path, tc.lines)
		}
	}
}

func TestSpanHashIgnoresIndentationAndBlankLines(t *testing.T) {
	a := SpanHash([]string{"func F() {", "\treturn 1", "}"})
	b := SpanHash([]string{"  func F() {  ", "", "    return 1", "}"})
	c := SpanHash([]string{"func F() {", "\treturn 2", "}"})
	if a != b {
		t.Errorf("re-indented span hashes differently")
	}
	if a == c {
		t.Errorf("an edited span hashes the same")
	}
}

func TestMentions(t *testing.T) {
	got := Mentions("Retries live in `client/retry.go:10-20` and cli/hooks.go:293; see `app.Send` and `Store.Commit()`, not e.g. v1.2 or `main.go`. Again cli/hooks.go:293.")
	want := []Mention{
		{Path: "client/retry.go", Lines: &smriti.LineRange{From: 10, To: 20}},
		{Path: "cli/hooks.go", Lines: &smriti.LineRange{From: 293, To: 293}},
		{Path: "app.Send"}, {Path: "Store.Commit"}, {Path: "e.g"}, {Path: "v1.2"}, {Path: "main.go"},
		{Symbol: "app.Send"}, {Symbol: "Store.Commit"},
	}
	if len(got) != len(want) {
		t.Fatalf("Mentions = %+v; want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Path != w.Path || g.Symbol != w.Symbol || (g.Lines == nil) != (w.Lines == nil) || g.Lines != nil && *g.Lines != *w.Lines {
			t.Errorf("Mentions[%d] = %+v; want %+v", i, g, w)
		}
	}
}

const goSrc = `package app

// Send sends.
func Send(x int) int {
	return x + 1
}

type Store struct{}

func (s *Store) Commit() error {
	return nil
}

var (
	A = 1
	B = 2
)
`

func TestGoSymbolSpan(t *testing.T) {
	for _, tc := range []struct {
		sym      string
		from, to int
		ok       bool
	}{
		{"Send", 4, 6, true},
		{"app.Send", 4, 6, true},
		{"Send()", 4, 6, true},
		{"Store", 8, 8, true},
		{"Store.Commit", 10, 12, true},
		{"app.Store.Commit", 10, 12, true},
		{"B", 16, 16, true},
		{"Missing", 0, 0, false},
		{"Other.Commit", 0, 0, false},
	} {
		r, ok := GoSymbolSpan([]byte(goSrc), tc.sym)
		if ok != tc.ok || ok && (r.From != tc.from || r.To != tc.to) {
			t.Errorf("GoSymbolSpan(%q) = %v, %v; want %d-%d, %v", tc.sym, r, ok, tc.from, tc.to, tc.ok)
		}
	}
	if _, ok := GoSymbolSpan([]byte("not go"), "Send"); ok {
		t.Errorf("found a symbol in text that does not parse")
	}
}

func TestClassify(t *testing.T) {
	lines := SplitLines([]byte(goSrc))
	sendSpan, _ := Span(lines, smriti.LineRange{From: 4, To: 6})
	hash := SpanHash(sendSpan)
	sym := "Send"
	lineRef := smriti.ItemRef{Path: "app/send.go", Lines: &smriti.LineRange{From: 4, To: 6}, SpanHash: hash}
	symRef := lineRef
	symRef.Symbol = &sym
	moved := "package app\n\n// added\nvar Z = 0\n\n" + goSrc[len("package app\n"):]
	edited := "package app\n\nfunc Send(x int) int {\n\treturn x + 2\n}\n"
	for _, tc := range []struct {
		name   string
		ref    smriti.ItemRef
		src    string
		exists bool
		want   Status
		lines  *smriti.LineRange
	}{
		{"LinesUnchangedAreFresh", lineRef, goSrc, true, Fresh, &smriti.LineRange{From: 4, To: 6}},
		{"SymbolUnchangedIsFresh", symRef, goSrc, true, Fresh, &smriti.LineRange{From: 4, To: 6}},
		{"ReindentedIsFresh", lineRef, "package app\n\n// Send sends.\n  func Send(x int) int {\n      return x + 1\n  }\n", true, Fresh, &smriti.LineRange{From: 4, To: 6}},
		{"LinesMovedAreMovedWithNewLines", lineRef, moved, true, Moved, &smriti.LineRange{From: 8, To: 10}},
		{"SymbolMovedIsMovedWithNewLines", symRef, moved, true, Moved, &smriti.LineRange{From: 8, To: 10}},
		{"SymbolEditedIsChangedAtItsLines", symRef, edited, true, Changed, &smriti.LineRange{From: 3, To: 5}},
		{"LinesEditedAreChanged", lineRef, edited, true, Changed, nil},
		{"PastTheEndIsChanged", smriti.ItemRef{Path: "a.go", Lines: &smriti.LineRange{From: 90, To: 99}, SpanHash: hash}, goSrc, true, Changed, nil},
		{"DeletedFileIsGone", lineRef, "", false, Gone, nil},
		{"WholeFileUnchangedIsFresh", smriti.ItemRef{Path: "a.go", SpanHash: SpanHash(lines)}, goSrc, true, Fresh, nil},
		{"WholeFileEditedIsChanged", smriti.ItemRef{Path: "a.go", SpanHash: SpanHash(lines)}, edited, true, Changed, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Classify(&tc.ref, []byte(tc.src), tc.exists)
			if v.Status != tc.want || (v.Lines == nil) != (tc.lines == nil) || v.Lines != nil && *v.Lines != *tc.lines {
				t.Errorf("Classify = %s %v; want %s %v", v.Status, v.Lines, tc.want, tc.lines)
			}
		})
	}
}

func TestByItemPutsWorstFirst(t *testing.T) {
	c := "0123456789abcdef0123456789abcdef01234567"
	fs := []Finding{
		{ItemID: "d-1", Status: Fresh, Ref: smriti.ItemRef{Path: "a.go", Commit: c}},
		{ItemID: "d-2", Status: Moved, Ref: smriti.ItemRef{Path: "b.go", Commit: c}, Lines: &smriti.LineRange{From: 3, To: 4}},
		{ItemID: "d-3", Status: Changed, CommitsSince: 1, Added: 2, Deleted: 1, Ref: smriti.ItemRef{Path: "c.go", Commit: c}},
		{ItemID: "d-2", Status: Gone, CommitsSince: 2, Ref: smriti.ItemRef{Path: "d.go", Commit: c}, Deleted: 9},
	}
	got := ByItem(fs)
	order := []string{}
	for _, g := range got {
		order = append(order, g.ItemID+":"+string(g.Status))
	}
	if want := "[d-2:gone d-3:changed d-1:fresh]"; fmtList(order) != want {
		t.Errorf("ByItem order = %s; want %s", fmtList(order), want)
	}
	if r, want := got[0].Reasons(), "b.go moved to lines 3-4; d.go is gone: the file was deleted; 2 commits since 0123456, +0 -9"; r != want {
		t.Errorf("Reasons = %q; want %q", r, want)
	}
	if r, want := got[1].Reasons(), "c.go changed; 1 commit since 0123456, +2 -1"; r != want {
		t.Errorf("Reasons = %q; want %q", r, want)
	}
	if n := len(Stale(got)); n != 2 {
		t.Errorf("Stale = %d items; want 2", n)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
