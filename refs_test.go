package smriti

import "testing"

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

func TestMatchCheckpointRef(t *testing.T) {
	cands := []CheckpointRef{
		{ID: "11111111-aaaa-4000-8000-000000000000", Hash: "abcdef0123"},
		{ID: "22222222-bbbb-4000-8000-000000000000", Hash: "abcdef0999"},
	}
	for _, c := range []struct {
		ref  string
		want int
		code string
	}{
		{"abcdef01", 0, ""},
		{"ABCDEF09", 1, ""},
		{"2222222", 1, ""},
		{"abcdef0", -1, EINVALID},
		{"abc", -1, EINVALID},
		{"fffffff", -1, ENOTFOUND},
	} {
		got, err := MatchCheckpointRef(cands, c.ref)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("MatchCheckpointRef(%q) = %d, %v; want %d, %q", c.ref, got, err, c.want, c.code)
		}
	}
}
