package app

import (
	"context"
	"strings"

	"smriti"
)

// maxVersionCandidates is how many versions matching a hash prefix are
// read: enough to tell one from several.
const maxVersionCandidates = 10

// Item answers "what is this item?" in a space: ref is an item id (its
// history and newest version) or an item@version name (the same history,
// and the version it names, on this copy of the space as on any other).
// EINVALID for a malformed name or an ambiguous prefix; ENOTFOUND for an
// item the space never had or a version it does not hold.
func (a *App) Item(ctx context.Context, space smriti.ID, ref string) (*smriti.ItemAt, error) {
	itemID, v, err := parseItemRef(ref)
	if err != nil {
		return nil, err
	}
	evs, err := a.store.ItemHistory(ctx, space, itemID)
	if err != nil {
		return nil, err
	}
	return smriti.ItemHistory(evs).At(itemID, v)
}

// parseItemRef splits an item ref into its id and, for an item@version
// name, the version.
func parseItemRef(ref string) (string, *smriti.ItemVersion, error) {
	if !isItemVersionRef(ref) {
		return ref, nil, nil
	}
	v, err := smriti.ParseItemVersion(ref)
	if err != nil {
		return "", nil, err
	}
	return v.ItemID, &v, nil
}

// ItemVersion returns the version an item@version name names among the
// spaces the caller can see (of one space when space is set): the event
// that introduced it, with its space. EINVALID for a malformed name or an
// ambiguous prefix, ENOTFOUND when no copy here holds it.
func (a *App) ItemVersion(ctx context.Context, space *smriti.ID, name string) (*smriti.ItemEvent, error) {
	v, err := smriti.ParseItemVersion(name)
	if err != nil {
		return nil, err
	}
	evs, err := a.store.ItemVersions(ctx, space, v.ItemID, v.Hash, maxVersionCandidates)
	if err != nil {
		return nil, err
	}
	return smriti.ItemHistory(evs).Pick(v)
}

// isItemVersionRef reports whether ref is written as an item version (it
// holds an @) rather than as an item id or words of an item's text; such a
// ref must then parse with ParseItemVersion.
func isItemVersionRef(ref string) bool { return strings.Contains(ref, "@") }
