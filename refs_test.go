package smriti

import (
	"context"
	"testing"

	"github.com/google/uuid"
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
		got, err := MatchCheckpointRef(cands, c.ref)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("MatchCheckpointRef(%q) = %d, %v; want %d, %q", c.ref, got, err, c.want, c.code)
		}
	}
}

func TestResolveCheckpointRef(t *testing.T) {
	spaceA, spaceB := uuid.MustParse("aaaaaaaa-0000-4000-8000-000000000000"), uuid.MustParse("bbbbbbbb-0000-4000-8000-000000000000")
	byspace := map[ID][]CheckpointRef{
		spaceA: {{ID: "11111111-aaaa-4000-8000-000000000000", Hash: "abcdef0123"}},
		spaceB: {{ID: "22222222-bbbb-4000-8000-000000000000", Hash: "abcdef0999"}},
	}
	var listed int
	spaces := func(context.Context) ([]ID, error) { return []ID{spaceA, spaceB}, nil }
	checkpoints := func(_ context.Context, s ID) ([]CheckpointRef, error) { listed++; return byspace[s], nil }
	for _, c := range []struct {
		name, ref string
		want      string
		code      string
		lists     int // spaces whose checkpoints were listed
	}{
		{"FullUUIDIsTakenAsItIs", " 33333333-cccc-4000-8000-000000000000 ", "33333333-cccc-4000-8000-000000000000", "", 0},
		{"MalformedUUIDIsInvalid", "3333333z-cccc-4000-8000-000000000000", "", EINVALID, 0},
		{"TooShortIsInvalidWithoutListing", "abc", "", EINVALID, 0},
		{"HashPrefixInAnySpace", "abcdef09", "22222222-bbbb-4000-8000-000000000000", "", 2},
		{"IDPrefix", "1111111", "11111111-aaaa-4000-8000-000000000000", "", 2},
		{"AmbiguousAcrossSpacesIsInvalid", "abcdef0", "", EINVALID, 2},
		{"NoMatchIsNotFound", "fffffff", "", ENOTFOUND, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			listed = 0
			got, err := ResolveCheckpointRef(context.Background(), c.ref, spaces, checkpoints)
			if ErrorCode(err) != c.code || listed != c.lists {
				t.Fatalf("ResolveCheckpointRef(%q) = %v, %v after listing %d spaces; want code %q after %d", c.ref, got, err, listed, c.code, c.lists)
			}
			if c.code == "" && got.String() != c.want {
				t.Fatalf("ResolveCheckpointRef(%q) = %v, want %s", c.ref, got, c.want)
			}
		})
	}
}

func TestResolveCheckpointRefPassesListingErrorsOn(t *testing.T) {
	boom := Errorf(EUNAVAILABLE, "down")
	_, err := ResolveCheckpointRef(context.Background(), "abcdef01",
		func(context.Context) ([]ID, error) { return nil, boom },
		func(context.Context, ID) ([]CheckpointRef, error) {
			t.Fatal("listed checkpoints without spaces")
			return nil, nil
		})
	if err != boom {
		t.Fatalf("err = %v, want the listing's error", err)
	}
}
