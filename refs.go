package smriti

import (
	"context"
	"sort"
	"strings"
)

// How people and agents name spaces and checkpoints: a space by its UUID or
// its name, a checkpoint by its UUID or a unique prefix of its id or hash.
// The CLI and the MCP tools both resolve names with these rules.

// MatchSpaceName returns the index of the one name equal to arg, else of
// the one equal ignoring case. Several matches are EINVALID (use the UUID),
// none is ENOTFOUND.
func MatchSpaceName(names []string, arg string) (int, error) {
	var exact, fold []int
	for i, n := range names {
		if n == arg {
			exact = append(exact, i)
		} else if strings.EqualFold(n, arg) {
			fold = append(fold, i)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) > 1:
		return -1, Errorf(EINVALID, "several spaces are named %q; use the UUID to choose one", arg)
	case len(fold) == 1:
		return fold[0], nil
	case len(fold) > 1:
		return -1, Errorf(EINVALID, "several spaces match %q ignoring case; use the UUID to choose one", arg)
	}
	return -1, Errorf(ENOTFOUND, "no space found matching %q", arg)
}

// CheckpointRef is what a checkpoint can be named by.
type CheckpointRef struct {
	ID   string
	Hash string
}

// LooksLikeID reports whether s has the shape of a UUID.
func LooksLikeID(s string) bool {
	return len(s) == 36 && strings.Count(s, "-") == 4
}

// matchCheckpointRef returns the index of the one candidate whose id or
// hash starts with ref (case-insensitive, at least MinRefPrefix
// characters). Too short or ambiguous is EINVALID, no match ENOTFOUND.
func matchCheckpointRef(cands []CheckpointRef, ref string) (int, error) {
	p := strings.ToLower(strings.TrimSpace(ref))
	if len(p) < MinRefPrefix {
		return -1, Errorf(EINVALID, "checkpoint %q: give the full id or at least %d characters of its id or hash", Truncate(ref, 64), MinRefPrefix)
	}
	var found []int
	for i, c := range cands {
		if strings.HasPrefix(c.ID, p) || strings.HasPrefix(c.Hash, p) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return -1, Errorf(ENOTFOUND, "no checkpoint matches %q", Truncate(ref, 64))
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = cands[f].Hash[:min(len(cands[f].Hash), MinRefPrefix)] + " (" + cands[f].ID + ")"
	}
	sort.Strings(names)
	return -1, Errorf(EINVALID, "checkpoint prefix %q is ambiguous: %s; give more characters", Truncate(ref, 64), strings.Join(names, ", "))
}

// ResolveCheckpointRef returns the ID of the checkpoint ref names: a full
// UUID as it is; otherwise the one checkpoint among those find returns for
// the prefix whose id or hash starts with ref (see matchCheckpointRef).
// find is asked once, with the trimmed, lower-cased prefix, and may return
// only the first few candidates (enough to tell one from several). Too
// short, ambiguous or malformed is EINVALID, no match ENOTFOUND; the caller
// fetches the checkpoint, so a UUID naming none is its ENOTFOUND.
func ResolveCheckpointRef(ctx context.Context, ref string, find func(ctx context.Context, prefix string) ([]CheckpointRef, error)) (ID, error) {
	ref = strings.TrimSpace(ref)
	if LooksLikeID(ref) {
		return ParseID("checkpoint", ref)
	}
	if len(ref) < MinRefPrefix {
		_, err := matchCheckpointRef(nil, ref)
		return NilID, err
	}
	all, err := find(ctx, strings.ToLower(ref))
	if err != nil {
		return NilID, err
	}
	i, err := matchCheckpointRef(all, ref)
	if err != nil {
		return NilID, err
	}
	return ParseID("checkpoint", all[i].ID)
}
