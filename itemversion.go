package smriti

import (
	"smriti/internal/textutil"
	"sort"
	"strings"
)

// Item versions. An item keeps its id while it lives; every change a
// checkpoint makes to it (add, update, resolve, retract, supersede) makes a
// version of it, named item@version: the item id and the hash of the
// checkpoint that made the change, e.g. d-7f3a9c@3f9a1c2b… A copy of a
// space keeps item ids and checkpoint hashes (bundles and clones carry both
// unchanged), so a name resolves to the same version on every copy. Like a
// git commit, a version may be given by a prefix of its hash.

// ItemVersion is a parsed item version name. Hash is the whole hash of the
// checkpoint that introduced the version, or a prefix of it (at least
// MinVersionPrefix lower-case hex digits).
type ItemVersion struct {
	ItemID string
	Hash   string
}

// String is the name as given: item@hash.
func (v ItemVersion) String() string { return v.ItemID + "@" + v.Hash }

// Short is the name as briefs and histories show it: the hash cut to
// ShortVersionChars digits.
func (v ItemVersion) Short() string {
	return v.ItemID + "@" + v.Hash[:min(len(v.Hash), ShortVersionChars)]
}

// ParseItemVersion reads an item version name: an item id (see ValidItemID),
// "@" and at least MinVersionPrefix hex digits of a checkpoint hash (upper
// case is read as lower). EINVALID names what is wrong.
func ParseItemVersion(s string) (ItemVersion, error) {
	s = strings.TrimSpace(s)
	id, hash, ok := strings.Cut(s, "@")
	if !ok {
		return ItemVersion{}, Errorf(EINVALID, "%q is not an item version: write ITEM@VERSION, e.g. d-7f3a9c@3f9a1c2b", textutil.Truncate(s, 90))
	}
	if !ValidItemID(id) {
		return ItemVersion{}, Errorf(EINVALID, "item version %q: %q is not an item id (a kind letter d, a, t, q or e, a dash and 6 to 16 hex digits, e.g. d-7f3a9c)", textutil.Truncate(s, 90), textutil.Truncate(id, 30))
	}
	hash = strings.ToLower(hash)
	switch {
	case len(hash) < MinVersionPrefix:
		return ItemVersion{}, Errorf(EINVALID, "item version %q: give at least %d hex digits of the version's checkpoint hash", textutil.Truncate(s, 90), MinVersionPrefix)
	case len(hash) > 64 || strings.Trim(hash, "0123456789abcdef") != "":
		return ItemVersion{}, Errorf(EINVALID, "item version %q: the version must be hex digits of a checkpoint hash (at most 64)", textutil.Truncate(s, 90))
	}
	return ItemVersion{ItemID: id, Hash: hash}, nil
}

// IsVersion reports whether ev is a version of itemID: a change the
// checkpoint made to that item itself, not a version a merge turned down
// nor the row of another item that superseded it.
func (ev *ItemEvent) IsVersion(itemID string) bool {
	return ev.Item.ID == itemID && !ev.Rejected && ev.Item.Change != nil && ev.Item.Change.Op != ""
}

// VersionName is the full item@version name of the version ev made of its
// item ("" for a version a merge turned down, which is no version of it).
func (ev *ItemEvent) VersionName() string {
	if ev.Rejected || ev.Item.Change == nil || ev.Item.Change.Op == "" {
		return ""
	}
	return ItemVersion{ItemID: ev.Item.ID, Hash: ev.CommitHash}.String()
}

// Pick returns the event among evs that introduced version v:
// the one version of v's item whose checkpoint hash starts with v.Hash.
// evs may hold any events (an item's history, or rows found by hash
// prefix); the others are ignored. ENOTFOUND when none matches, naming the
// item's versions among evs; EINVALID when the prefix matches several.
func (evs ItemHistory) Pick(v ItemVersion) (*ItemEvent, error) {
	var found, all []*ItemEvent
	for i := range evs {
		ev := &evs[i]
		if !ev.IsVersion(v.ItemID) {
			continue
		}
		all = append(all, ev)
		if strings.HasPrefix(ev.CommitHash, v.Hash) {
			found = append(found, ev)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		msg := Errorf(ENOTFOUND, "Item %s has no version %s in this space", v.ItemID, textutil.Truncate(v.Hash, 64))
		if len(all) == 0 {
			return nil, msg
		}
		names := make([]string, 0, len(all))
		for _, ev := range all[max(0, len(all)-5):] {
			names = append(names, ItemVersion{ItemID: ev.Item.ID, Hash: ev.CommitHash}.Short())
		}
		more := ""
		if len(all) > 5 {
			more = " (the newest 5)"
		}
		return nil, Errorf(ENOTFOUND, "%s; its versions%s: %s", ErrorMessage(msg), more, strings.Join(names, ", "))
	}
	names := make([]string, len(found))
	for i, ev := range found {
		names[i] = ItemVersion{ItemID: ev.Item.ID, Hash: ev.CommitHash}.String()
	}
	sort.Strings(names)
	return nil, Errorf(EINVALID, "item version %s is ambiguous: %s; give more digits", v, strings.Join(names, ", "))
}

// ItemAt is an item's history with one version of it picked out.
type ItemAt struct {
	ItemID string
	// History is the item's history, as the storage contract's ItemHistory returns
	// it.
	History []ItemEvent
	// Version is the event of History that introduced the version picked:
	// the one an item@version name asked for, else the item's newest (nil
	// when History holds no version of the item itself).
	Version *ItemEvent
}

// At picks a version of itemID out of its history evs: the one v
// names (see Pick for its errors), or the newest when v is nil
// (none when the history holds only other items' rows).
func (evs ItemHistory) At(itemID string, v *ItemVersion) (*ItemAt, error) {
	at := &ItemAt{ItemID: itemID, History: evs}
	if v != nil {
		ev, err := evs.Pick(*v)
		if err != nil {
			return nil, err
		}
		at.Version = ev
		return at, nil
	}
	at.Version = at.Newest()
	return at, nil
}

// Newest is the item's newest version in History (nil when it has none).
func (at *ItemAt) Newest() *ItemEvent {
	for i := len(at.History) - 1; i >= 0; i-- {
		if at.History[i].IsVersion(at.ItemID) {
			return &at.History[i]
		}
	}
	return nil
}

// Latest reports whether the version picked is the item's newest.
func (at *ItemAt) Latest() bool { return at.Version != nil && at.Newest() == at.Version }
