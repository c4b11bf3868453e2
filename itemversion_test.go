package smriti

import "testing"

const (
	hashA = "3f9a1c2b7d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeef"
	hashB = "3f9a1c2b00000000000000000000000000000000000000000000000000000001"
	hashC = "c0ffee0011223344556677889900aabbccddeeff00112233445566778899aabb"
)

func TestParseItemVersion(t *testing.T) {
	tests := []struct {
		name, in string
		want     ItemVersion
		code     string
		msg      string
	}{
		{"FullHash", "d-7f3a9c@" + hashA, ItemVersion{"d-7f3a9c", hashA}, "", ""},
		{"EightDigitPrefix", "t-0a1b2c3d@3f9a1c2b", ItemVersion{"t-0a1b2c3d", "3f9a1c2b"}, "", ""},
		{"UpperCaseHashIsLowered", " q-abcdef@3F9A1C2BD ", ItemVersion{"q-abcdef", "3f9a1c2bd"}, "", ""},
		{"NoAt", "d-7f3a9c", ItemVersion{}, EINVALID,
			`"d-7f3a9c" is not an item version: write ITEM@VERSION, e.g. d-7f3a9c@3f9a1c2b`},
		{"BadKindLetter", "x-7f3a9c@3f9a1c2b", ItemVersion{}, EINVALID,
			`item version "x-7f3a9c@3f9a1c2b": "x-7f3a9c" is not an item id (a kind letter d, a, t, q or e, a dash and 6 to 16 hex digits, e.g. d-7f3a9c)`},
		{"IDTooShort", "d-7f3a@3f9a1c2b", ItemVersion{}, EINVALID,
			`item version "d-7f3a@3f9a1c2b": "d-7f3a" is not an item id (a kind letter d, a, t, q or e, a dash and 6 to 16 hex digits, e.g. d-7f3a9c)`},
		{"EmptyID", "@3f9a1c2b", ItemVersion{}, EINVALID,
			`item version "@3f9a1c2b": "" is not an item id (a kind letter d, a, t, q or e, a dash and 6 to 16 hex digits, e.g. d-7f3a9c)`},
		{"PrefixTooShort", "d-7f3a9c@3f9a1c2", ItemVersion{}, EINVALID,
			`item version "d-7f3a9c@3f9a1c2": give at least 8 hex digits of the version's checkpoint hash`},
		{"EmptyVersion", "d-7f3a9c@", ItemVersion{}, EINVALID,
			`item version "d-7f3a9c@": give at least 8 hex digits of the version's checkpoint hash`},
		{"HashNotHex", "d-7f3a9c@3f9a1c2g", ItemVersion{}, EINVALID,
			`item version "d-7f3a9c@3f9a1c2g": the version must be hex digits of a checkpoint hash (at most 64)`},
		{"HashTooLong", "d-7f3a9c@" + hashA + "0", ItemVersion{}, EINVALID,
			`item version "d-7f3a9c@3f9a1c2b7d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeef0": the version must be hex digits of a checkpoint hash (at most 64)`},
		{"TwoAts", "d-7f3a9c@3f9a1c2b@1", ItemVersion{}, EINVALID,
			`item version "d-7f3a9c@3f9a1c2b@1": the version must be hex digits of a checkpoint hash (at most 64)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseItemVersion(tt.in)
			if tt.code == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseItemVersion(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
				}
				return
			}
			if ErrorCode(err) != tt.code || ErrorMessage(err) != tt.msg {
				t.Fatalf("ParseItemVersion(%q) error = %s %q; want %s %q", tt.in, ErrorCode(err), ErrorMessage(err), tt.code, tt.msg)
			}
		})
	}
}

func TestItemVersionNames(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"Full", ItemVersion{ItemID: "d-7f3a9c", Hash: hashA}.String(), "d-7f3a9c@" + hashA},
		{"Short", ItemVersion{ItemID: "d-7f3a9c", Hash: hashA}.Short(), "d-7f3a9c@3f9a1c2b7d4e"},
		{"ShortOfShortHash", ItemVersion{ItemID: "d-7f3a9c", Hash: "3f9a1c2b"}.Short(), "d-7f3a9c@3f9a1c2b"},
		{"String", ItemVersion{"e-123456", "c0ffee00"}.String(), "e-123456@c0ffee00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestPickItemVersion(t *testing.T) {
	ev := func(hash, id, op, text string) ItemEvent {
		it := Item{ID: id, Kind: KindDecision, Text: text, Status: ItemOpen}
		if op != "" {
			it.Change = &ItemChange{Op: op}
		}
		return ItemEvent{CommitHash: hash, Item: it}
	}
	rejected := ev(hashC, "d-7f3a9c", OpUpdate, "turned down")
	rejected.Rejected = true
	evs := []ItemEvent{
		ev(hashA, "d-7f3a9c", OpAdd, "first"),
		ev(hashB, "d-7f3a9c", OpUpdate, "second"),
		rejected,
		ev(hashC, "d-7f3a9c", OpUpdate, "third"),
		ev(hashC, "d-0b0b0b", OpSupersede, "the replacement"),
	}
	tests := []struct {
		name     string
		v        ItemVersion
		wantText string
		code     string
		msg      string
	}{
		{"FullHash", ItemVersion{"d-7f3a9c", hashA}, "first", "", ""},
		{"UniquePrefix", ItemVersion{"d-7f3a9c", "3f9a1c2b0"}, "second", "", ""},
		{"MergeKeepsItsOwnRowNotTheRejectedOne", ItemVersion{"d-7f3a9c", "c0ffee00"}, "third", "", ""},
		{"OtherItemAtSameCheckpoint", ItemVersion{"d-0b0b0b", "c0ffee00"}, "the replacement", "", ""},
		{"AmbiguousPrefix", ItemVersion{"d-7f3a9c", "3f9a1c2b"}, "", EINVALID,
			"item version d-7f3a9c@3f9a1c2b is ambiguous: d-7f3a9c@" + hashB + ", d-7f3a9c@" + hashA + "; give more digits"},
		{"UnknownVersionNamesTheVersions", ItemVersion{"d-7f3a9c", "deadbeef"}, "", ENOTFOUND,
			"Item d-7f3a9c has no version deadbeef in this space; its versions: d-7f3a9c@3f9a1c2b7d4e, d-7f3a9c@3f9a1c2b0000, d-7f3a9c@c0ffee001122"},
		{"UnknownItem", ItemVersion{"a-111111", "3f9a1c2b"}, "", ENOTFOUND, "Item a-111111 has no version 3f9a1c2b in this space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ItemHistory(evs).Pick(tt.v)
			if tt.code == "" {
				if err != nil || got.Item.Text != tt.wantText {
					t.Fatalf("PickItemVersion(%s) = %+v, %v; want text %q", tt.v, got, err, tt.wantText)
				}
				return
			}
			if ErrorCode(err) != tt.code || ErrorMessage(err) != tt.msg {
				t.Fatalf("PickItemVersion(%s) error = %s %q;\nwant %s %q", tt.v, ErrorCode(err), ErrorMessage(err), tt.code, tt.msg)
			}
		})
	}
}
