package search

import (
	"smriti"
)

// Group kinds: an item found in one or more checkpoints, or a hit that is
// no item's (a checkpoint matched outside its items, a turn, a note).
const GroupItem = "item"

// CheckpointRef names a checkpoint a grouped item lives in.
type CheckpointRef struct {
	CheckpointID smriti.ID `json:"checkpoint_id" doc:"The checkpoint (UUID)"`
	CommitHash   string    `json:"commit_hash" doc:"Its hash; the first 7 characters are how Smriti names it"`
	Branch       string    `json:"branch" doc:"Its branch"`
	Title        string    `json:"title" doc:"Its title"`
}

// GroupedItem is the item a group stands for.
type GroupedItem struct {
	ID   string `json:"id" doc:"The item's id, the same in every checkpoint that carries it"`
	Kind string `json:"kind" doc:"decision, assumption, task, open_question or entity"`
	Text string `json:"text" doc:"The item's text in the best-ranked checkpoint that holds it"`
}

// SearchGroup is one result of a grouped search: an item with every
// checkpoint it was found in, or a single hit that is no item's.
type SearchGroup struct {
	Kind        string          `json:"kind" doc:"item, or the hit's kind (checkpoint, turn, note) when the match is no single item's"`
	Item        *GroupedItem    `json:"item" doc:"The item (kind item; null otherwise)"`
	Hit         *SearchHit      `json:"hit" doc:"The best-ranked hit of the group; for an item its snippet is cut from the item's text"`
	Checkpoints []CheckpointRef `json:"checkpoints" doc:"The checkpoints the item lives in, best-ranked first ([] unless kind item)"`
}

// ItemsOf returns a checkpoint's items.
type ItemsOf func(checkpoint smriti.ID) ([]smriti.Item, error)

// Group folds hits into one result per item: a checkpoint hit whose match
// lies in some of its live items (every term of the query among the item's
// words) becomes those items' groups, so an item carried through many
// checkpoints is found once, listing them; any other hit is a group of its
// own. Groups keep the order of their best hit; at most limit are returned.
func Group(hits []*SearchHit, terms []string, items ItemsOf, limit int) ([]SearchGroup, error) {
	type key struct {
		space smriti.ID
		id    string
	}
	var out []SearchGroup
	at := map[key]int{}
	for _, h := range hits {
		var matched []smriti.Item
		if h.Kind == KindCheckpoint && h.CheckpointID != nil {
			list, err := items(*h.CheckpointID)
			if err != nil {
				return nil, err
			}
			for _, it := range list {
				if (it.Status == smriti.ItemOpen || it.Status == smriti.ItemDone) && hasAll(it.Text, terms) {
					matched = append(matched, it)
				}
			}
		}
		if len(matched) == 0 {
			out = append(out, SearchGroup{Kind: h.Kind, Hit: h, Checkpoints: []CheckpointRef{}})
			continue
		}
		ref := CheckpointRef{CheckpointID: *h.CheckpointID, Branch: h.Branch, Title: h.Title}
		if h.CommitHash != nil {
			ref.CommitHash = *h.CommitHash
		}
		for _, it := range matched {
			k := key{h.SpaceID, it.ID}
			if i, ok := at[k]; ok {
				out[i].Checkpoints = append(out[i].Checkpoints, ref)
				continue
			}
			hit := *h
			hit.Snippet = Snippet(it.Text, terms)
			at[k] = len(out)
			out = append(out, SearchGroup{Kind: GroupItem, Item: &GroupedItem{ID: it.ID, Kind: string(it.Kind), Text: it.Text}, Hit: &hit, Checkpoints: []CheckpointRef{ref}})
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// hasAll reports whether every term is one of text's words.
func hasAll(text string, terms []string) bool {
	have := map[string]bool{}
	for _, w := range splitWords(text) {
		have[foldWord(w.text)] = true
	}
	for _, t := range terms {
		if !have[t] {
			return false
		}
	}
	return len(terms) > 0
}
