package app

import (
	"context"
	"smriti"
	"smriti/internal/textutil"
	"sort"
	"strings"
)

// checkpointRef is what a checkpoint can be named by.
type checkpointRef struct {
	ID   string
	Hash string
}

// matchCheckpointRef returns the index of the one candidate whose id or
// hash starts with ref (case-insensitive, at least MinRefPrefix
// characters). Too short or ambiguous is EINVALID, no match ENOTFOUND.
func matchCheckpointRef(cands []checkpointRef, ref string) (int, error) {
	p := strings.ToLower(strings.TrimSpace(ref))
	if len(p) < smriti.MinRefPrefix {
		return -1, smriti.Errorf(smriti.EINVALID, "checkpoint %q: give the full id or at least %d characters of its id or hash", textutil.Truncate(ref, 64), smriti.MinRefPrefix)
	}
	var found []int
	for i, c := range cands {
		if strings.HasPrefix(c.ID, p) || strings.HasPrefix(c.Hash, p) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return -1, smriti.Errorf(smriti.ENOTFOUND, "no checkpoint matches %q", textutil.Truncate(ref, 64))
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = cands[f].Hash[:min(len(cands[f].Hash), smriti.MinRefPrefix)] + " (" + cands[f].ID + ")"
	}
	sort.Strings(names)
	return -1, smriti.Errorf(smriti.EINVALID, "checkpoint prefix %q is ambiguous: %s; give more characters", textutil.Truncate(ref, 64), strings.Join(names, ", "))
}

// resolveCheckpointRef returns the ID of the checkpoint ref names: a full
// UUID as it is; otherwise the one checkpoint among those find returns for
// the prefix whose id or hash starts with ref (see matchCheckpointRef).
// find is asked once, with the trimmed, lower-cased prefix, and may return
// only the first few candidates (enough to tell one from several). Too
// short, ambiguous or malformed is EINVALID, no match ENOTFOUND; the caller
// fetches the checkpoint, so a UUID naming none is its ENOTFOUND.
func resolveCheckpointRef(ctx context.Context, ref string, find func(ctx context.Context, prefix string) ([]checkpointRef, error)) (smriti.ID, error) {
	ref = strings.TrimSpace(ref)
	if textutil.LooksLikeID(ref) {
		return smriti.ParseID("checkpoint", ref)
	}
	if len(ref) < smriti.MinRefPrefix {
		_, err := matchCheckpointRef(nil, ref)
		return smriti.NilID, err
	}
	all, err := find(ctx, strings.ToLower(ref))
	if err != nil {
		return smriti.NilID, err
	}
	i, err := matchCheckpointRef(all, ref)
	if err != nil {
		return smriti.NilID, err
	}
	return smriti.ParseID("checkpoint", all[i].ID)
}
