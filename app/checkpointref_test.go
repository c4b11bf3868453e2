package app

import (
	"context"
	"smriti"
	"strings"
	"testing"
)

func TestMatchCheckpointRef(t *testing.T) {
	cands := []checkpointRef{
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
		{"abcdef0", -1, smriti.EINVALID},
		{"abc", -1, smriti.EINVALID},
		{"fffffff", -1, smriti.ENOTFOUND},
	} {
		got, err := matchCheckpointRef(cands, c.ref)
		if got != c.want || smriti.ErrorCode(err) != c.code {
			t.Errorf("matchCheckpointRef(%q) = %d, %v; want %d, %q", c.ref, got, err, c.want, c.code)
		}
	}
}

func TestResolveCheckpointRef(t *testing.T) {
	all := []checkpointRef{
		{ID: "11111111-aaaa-4000-8000-000000000000", Hash: "abcdef0123"},
		{ID: "22222222-bbbb-4000-8000-000000000000", Hash: "abcdef0999"},
	}
	var asked []string
	find := func(_ context.Context, prefix string) ([]checkpointRef, error) {
		asked = append(asked, prefix)
		var out []checkpointRef
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
		{"MalformedUUIDIsInvalid", "3333333z-cccc-4000-8000-000000000000", "", smriti.EINVALID, 0},
		{"TooShortIsInvalidWithoutListing", "abc", "", smriti.EINVALID, 0},
		{"HashPrefixInAnySpace", "ABCDEF09", "22222222-bbbb-4000-8000-000000000000", "", 1},
		{"IDPrefix", "1111111", "11111111-aaaa-4000-8000-000000000000", "", 1},
		{"AmbiguousAcrossSpacesIsInvalid", "abcdef0", "", smriti.EINVALID, 1},
		{"NoMatchIsNotFound", "fffffff", "", smriti.ENOTFOUND, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked = nil
			got, err := resolveCheckpointRef(context.Background(), c.ref, find)
			if smriti.ErrorCode(err) != c.code || len(asked) != c.finds {
				t.Fatalf("resolveCheckpointRef(%q) = %v, %v after %d finds; want code %q after %d", c.ref, got, err, len(asked), c.code, c.finds)
			}
			if c.finds == 1 && asked[0] != strings.ToLower(strings.TrimSpace(c.ref)) {
				t.Fatalf("asked for %q, want the lower-cased prefix", asked[0])
			}
			if c.code == "" && got.String() != c.want {
				t.Fatalf("resolveCheckpointRef(%q) = %v, want %s", c.ref, got, c.want)
			}
		})
	}
}

func TestResolveCheckpointRefPassesFindErrorsOn(t *testing.T) {
	boom := smriti.Errorf(smriti.EUNAVAILABLE, "down")
	_, err := resolveCheckpointRef(context.Background(), "abcdef01",
		func(context.Context, string) ([]checkpointRef, error) { return nil, boom })
	if err != boom {
		t.Fatalf("err = %v, want the find's error", err)
	}
}
