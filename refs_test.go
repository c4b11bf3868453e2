package smriti

import (
	"context"
	"strings"
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
		got, err := matchCheckpointRef(cands, c.ref)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("MatchCheckpointRef(%q) = %d, %v; want %d, %q", c.ref, got, err, c.want, c.code)
		}
	}
}

func TestResolveCheckpointRef(t *testing.T) {
	all := []CheckpointRef{
		{ID: "11111111-aaaa-4000-8000-000000000000", Hash: "abcdef0123"},
		{ID: "22222222-bbbb-4000-8000-000000000000", Hash: "abcdef0999"},
	}
	var asked []string
	find := func(_ context.Context, prefix string) ([]CheckpointRef, error) {
		asked = append(asked, prefix)
		var out []CheckpointRef
		for _, c := range all {
			if strings.HasPrefix(c.ID, prefix) || strings.HasPrefix(c.Hash, prefix) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	for _, c := range []struct {
		name, ref string
		want      string
		code      string
		finds     int // times the candidates were asked for
	}{
		{"FullUUIDIsTakenAsItIs", " 33333333-cccc-4000-8000-000000000000 ", "33333333-cccc-4000-8000-000000000000", "", 0},
		{"MalformedUUIDIsInvalid", "3333333z-cccc-4000-8000-000000000000", "", EINVALID, 0},
		{"TooShortIsInvalidWithoutListing", "abc", "", EINVALID, 0},
		{"HashPrefixInAnySpace", "ABCDEF09", "22222222-bbbb-4000-8000-000000000000", "", 1},
		{"IDPrefix", "1111111", "11111111-aaaa-4000-8000-000000000000", "", 1},
		{"AmbiguousAcrossSpacesIsInvalid", "abcdef0", "", EINVALID, 1},
		{"NoMatchIsNotFound", "fffffff", "", ENOTFOUND, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked = nil
			got, err := ResolveCheckpointRef(context.Background(), c.ref, find)
			if ErrorCode(err) != c.code || len(asked) != c.finds {
				t.Fatalf("ResolveCheckpointRef(%q) = %v, %v after %d finds; want code %q after %d", c.ref, got, err, len(asked), c.code, c.finds)
			}
			if c.finds == 1 && asked[0] != strings.ToLower(strings.TrimSpace(c.ref)) {
				t.Fatalf("asked for %q, want the lower-cased prefix", asked[0])
			}
			if c.code == "" && got.String() != c.want {
				t.Fatalf("ResolveCheckpointRef(%q) = %v, want %s", c.ref, got, c.want)
			}
		})
	}
}

func TestResolveCheckpointRefPassesFindErrorsOn(t *testing.T) {
	boom := Errorf(EUNAVAILABLE, "down")
	_, err := ResolveCheckpointRef(context.Background(), "abcdef01",
		func(context.Context, string) ([]CheckpointRef, error) { return nil, boom })
	if err != boom {
		t.Fatalf("err = %v, want the find's error", err)
	}
}
