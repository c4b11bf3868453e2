package smriti

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A line of five checkpoints: d-1 held throughout, t-1 open then done,
// d-2 retracted at 3 and back at 5, d-3 reworded at 4.
func TestStateAsOfSpans(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	item := func(id, text, status string) Item {
		return Item{ID: id, Kind: KindDecision, Text: text, Status: status}
	}
	steps := [][]Item{
		{item("d-1", "a", ItemOpen), item("t-1", "t", ItemOpen), item("d-2", "b", ItemOpen), item("d-3", "c", ItemOpen)},
		{item("d-1", "a", ItemOpen), item("t-1", "t", ItemDone), item("d-2", "b", ItemOpen), item("d-3", "c", ItemOpen)},
		{item("d-1", "a", ItemOpen), item("t-1", "t", ItemDone), item("d-2", "b", ItemRetracted), item("d-3", "c", ItemOpen)},
		{item("d-1", "a", ItemOpen), item("t-1", "t", ItemDone), item("d-3", "c2", ItemOpen)},
		{item("d-1", "a", ItemOpen), item("t-1", "t", ItemDone), item("d-2", "b", ItemOpen), item("d-3", "c2", ItemOpen)},
	}
	var line []*Checkpoint
	for i, items := range steps {
		line = append(line, &Checkpoint{Hash: fmt.Sprintf("abcdef0%d%056d", i+1, 0), CreatedAt: t0.Add(time.Duration(i) * time.Hour), Content: Content{Message: fmt.Sprint(i + 1)}, Items: items})
	}
	render := func(spans []ItemSpan) string {
		var out []string
		for _, s := range spans {
			to := "head"
			if s.ValidTo != nil {
				to = s.ValidTo.Message
			}
			out = append(out, fmt.Sprintf("%s %s %s %s→%s", s.Item.ID, s.Item.Text, s.Item.Status, s.ValidFrom.Message, to))
		}
		return strings.Join(out, ", ")
	}
	for at, want := range []string{
		"d-1 a open 1→head, t-1 t open 1→2, d-2 b open 1→3, d-3 c open 1→4",
		"d-1 a open 1→head, t-1 t done 2→head, d-2 b open 1→3, d-3 c open 1→4",
		"d-1 a open 1→head, t-1 t done 2→head, d-3 c open 1→4",
		"d-1 a open 1→head, t-1 t done 2→head, d-3 c2 open 4→head",
		"d-1 a open 1→head, t-1 t done 2→head, d-2 b open 5→head, d-3 c2 open 4→head",
	} {
		if got := render(Line(line).StateAt(at)); got != want {
			t.Errorf("as of %d:\n got %s\nwant %s", at+1, got, want)
		}
	}
	for ref, want := range map[string]int{
		"2026-12-01T10:30:00Z": 1, "2026-12-01T11:00:00Z": 2, "2026-12-01": 4, "abcdef03": 2,
	} {
		if got, err := Line(line).Index(ref); err != nil || got != want {
			t.Errorf("Line.Index(%q) = %d, %v; want %d", ref, got, err, want)
		}
	}
	for ref, want := range map[string]string{
		"2026-11-30":   "no checkpoint on this line of work was written at or before 2026-11-30T23:59:59Z",
		"00000":        `as_of "00000": give a checkpoint id or hash (at least 7 characters) or an RFC 3339 time`,
		"abcdef0":      `as_of "abcdef0" matches more than one checkpoint; give more characters`,
		"ffffffffffff": `no checkpoint on this line of work matches "ffffffffffff"`,
	} {
		if _, err := Line(line).Index(ref); err == nil || ErrorMessage(err) != want {
			t.Errorf("Line.Index(%q) error = %v, want %q", ref, err, want)
		}
	}
}
