package smriti

import (
	"testing"
)

func TestMatchSpaceName(t *testing.T) {
	names := []string{"Demo", "demo", "Other", "twin", "twin"}
	for _, c := range []struct {
		arg  string
		want int
		code string
	}{
		{"demo", 1, ""},
		{"Demo", 0, ""},
		{"OTHER", 2, ""},
		{"twin", -1, EINVALID},
		{"DEMO", -1, EINVALID},
		{"none", -1, ENOTFOUND},
	} {
		got, err := MatchSpaceName(names, c.arg)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("MatchSpaceName(%q) = %d, %v; want %d, %q", c.arg, got, err, c.want, c.code)
		}
	}
}
