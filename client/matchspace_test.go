package client

import (
	"smriti"
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
		{"twin", -1, smriti.EINVALID},
		{"DEMO", -1, smriti.EINVALID},
		{"none", -1, smriti.ENOTFOUND},
	} {
		got, err := MatchSpaceName(names, c.arg)
		if got != c.want || smriti.ErrorCode(err) != c.code {
			t.Errorf("MatchSpaceName(%q) = %d, %v; want %d, %q", c.arg, got, err, c.want, c.code)
		}
	}
}
