package render

import (
	"testing"

	"smriti"
	"smriti/coderef"
)

func TestMarkStaleText(t *testing.T) {
	checks := []coderef.ItemCheck{
		{ItemID: "d-1", Kind: smriti.KindDecision, Text: "Sends go through app.Send", Status: coderef.Changed},
		{ItemID: "t-1", Kind: smriti.KindTask, Text: "Move retries", Status: coderef.Gone},
		{ItemID: "d-2", Kind: smriti.KindDecision, Text: "Fresh one", Status: coderef.Fresh},
	}
	cases := []struct{ name, in, want string }{
		{"bullet", "## Decisions\n- Sends go through app.Send\n- Other", "## Decisions\n- Sends go through app.Send [check: changed]\n- Other"},
		{"task box", "- [ ] Move retries", "- [ ] Move retries [check: gone]"},
		{"fresh untouched", "- Fresh one", "- Fresh one"},
		{"substring untouched", "- Sends go through app.Send and more", "- Sends go through app.Send and more"},
		{"not a bullet", "Sends go through app.Send", "Sends go through app.Send"},
		{"once per item", "- Sends go through app.Send\n- Sends go through app.Send", "- Sends go through app.Send [check: changed]\n- Sends go through app.Send"},
	}
	for _, c := range cases {
		if got := MarkStaleText(c.in, checks); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if got := MarkStaleText("- x", nil); got != "- x" {
		t.Errorf("no checks: got %q", got)
	}
}
