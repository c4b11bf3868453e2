package app

import (
	"context"
	"fmt"
	"strings"

	"smriti"
	"smriti/contract"
	"smriti/coord"
	"smriti/internal/textutil"
	"smriti/proposal"
)

// minIDPrefix is the shortest id prefix that names a session or a
// proposal (what Smriti prints is 8).
const minIDPrefix = 4

// pickByPrefix is the one id of candidates ref names: ENOTFOUND when there
// is none, EINVALID naming how many when there are several.
func pickByPrefix(what, ref string, candidates []smriti.ID) (smriti.ID, error) {
	switch len(candidates) {
	case 0:
		return smriti.NilID, smriti.Errorf(smriti.ENOTFOUND, "%s%s not found: no %s starts with %q", strings.ToUpper(what[:1]), what[1:], what, ref)
	case 1:
		return candidates[0], nil
	}
	n := fmt.Sprint(len(candidates))
	if len(candidates) >= maxRefCandidates {
		n = "at least " + n
	}
	return smriti.NilID, smriti.Errorf(smriti.EINVALID, "%s %ss start with %q: give more characters of the id", n, what, ref)
}

// idRef is ref as a full id (ok), or as a prefix to look up: EINVALID for
// one shorter than minIDPrefix or not hex.
func idRef(what, ref string) (id smriti.ID, prefix string, err error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if textutil.LooksLikeID(ref) {
		id, err := smriti.ParseID(what, ref)
		return id, "", err
	}
	if len(ref) < minIDPrefix || strings.Trim(ref, "0123456789abcdef-") != "" {
		return smriti.NilID, "", smriti.Errorf(smriti.EINVALID, "%q: give the %s id or at least %d characters of it", textutil.Truncate(ref, 40), what, minIDPrefix)
	}
	return smriti.NilID, ref, nil
}

// ResolveSession returns the session ref names among those the caller can
// see: its id, or a unique prefix of at least 4 characters of it. One
// query finds the candidates. EINVALID for a ref too short or ambiguous,
// ENOTFOUND when nothing matches.
func (a *App) ResolveSession(ctx context.Context, ref string) (*smriti.Session, error) {
	id, prefix, err := idRef("session", ref)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		ids, err := a.store.SessionsByPrefix(ctx, prefix, maxRefCandidates)
		if err != nil {
			return nil, err
		}
		if id, err = pickByPrefix("session", prefix, ids); err != nil {
			return nil, err
		}
	}
	return a.store.Session(ctx, id)
}

// ResolveProposal returns the proposal of space ref names: its id, or a
// unique prefix of at least 4 characters of it, whatever its status. One
// query finds the candidates. EINVALID for a ref too short or ambiguous,
// ENOTFOUND when nothing matches (or the space is not the caller's to
// see).
func (a *App) ResolveProposal(ctx context.Context, space smriti.ID, ref string) (*proposal.Proposal, error) {
	id, prefix, err := idRef("proposal", ref)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		ids, err := a.store.ProposalsByPrefix(ctx, space, prefix, maxRefCandidates)
		if err != nil {
			return nil, err
		}
		if id, err = pickByPrefix("proposal", prefix, ids); err != nil {
			return nil, err
		}
	}
	return a.ShowProposal(ctx, space, id)
}

// ResolveClaim returns the claim ref names among those of every space the
// caller can see: its id, or a unique prefix of at least 4 characters of
// it. One query finds the candidates. EINVALID for a ref too short or
// ambiguous, ENOTFOUND when nothing matches.
func (a *App) ResolveClaim(ctx context.Context, ref string) (*coord.Claim, error) {
	id, prefix, err := idRef("claim", ref)
	if err != nil {
		return nil, err
	}
	if prefix == "" {
		prefix = id.String()
	}
	cs, err := a.store.ClaimsByPrefix(ctx, prefix, maxRefCandidates)
	if err != nil {
		return nil, err
	}
	ids := make([]smriti.ID, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	if id, err = pickByPrefix("claim", prefix, ids); err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c.ID == id {
			return c, nil
		}
	}
	return nil, smriti.Errorf(smriti.ENOTFOUND, "Claim not found")
}

// ResolveItem returns the item id ref names in space: an item id or an
// item@version name as given (App.Item reads either), else the live item
// of the space's head — main's newest checkpoint, else the newest of any
// branch — whose normalised text is ref, else the one whose text contains
// it. ENOTFOUND when nothing matches or the space has no checkpoint,
// EINVALID naming the candidates when several do.
func (a *App) ResolveItem(ctx context.Context, space smriti.ID, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if smriti.ValidItemID(ref) || isItemVersionRef(ref) {
		return ref, nil
	}
	heads, err := a.store.LatestCheckpoints(ctx, space, smriti.MainBranch, 1)
	if err != nil {
		return "", err
	}
	if len(heads) == 0 {
		if heads, _, err = a.store.Checkpoints(ctx, space, contract.CheckpointQuery{Page: smriti.Page{Limit: 1}}); err != nil {
			return "", err
		}
	}
	if len(heads) == 0 {
		return "", smriti.Errorf(smriti.ENOTFOUND, "The space has no checkpoint, so no items")
	}
	items, err := a.store.CheckpointItems(ctx, heads[0].ID)
	if err != nil {
		return "", err
	}
	it, err := findItem(items, ref)
	if err != nil {
		return "", err
	}
	return it.ID, nil
}

// findItem picks the item a person means: its id, else the live item whose
// normalised text equals query, else the one live item whose text contains
// it. ENOTFOUND when nothing matches; EINVALID naming the candidates when
// several do.
func findItem(items []smriti.Item, query string) (*smriti.Item, error) {
	q := strings.TrimSpace(query)
	for i := range items {
		if items[i].ID == q {
			return &items[i], nil
		}
	}
	key := smriti.ItemKey(q)
	var contains []*smriti.Item
	for i := range items {
		it := &items[i]
		if !it.Live() {
			continue
		}
		if smriti.ItemKey(it.Text) == key {
			return it, nil
		}
		if k := smriti.NormalizeItem(q); k != "" && strings.Contains(smriti.NormalizeItem(it.Text), k) {
			contains = append(contains, it)
		}
	}
	switch len(contains) {
	case 1:
		return contains[0], nil
	case 0:
		return nil, smriti.Errorf(smriti.ENOTFOUND, "No item of the head matches %q; give an item id (checkpoint show --items lists them)", textutil.Truncate(q, 60))
	}
	var names []string
	for _, it := range contains {
		names = append(names, fmt.Sprintf("%s %q", it.ID, textutil.Truncate(it.Text, 50)))
	}
	return nil, smriti.Errorf(smriti.EINVALID, "%q matches %d items: %s; give one id", textutil.Truncate(q, 60), len(contains), strings.Join(names, ", "))
}
