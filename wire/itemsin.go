package wire

import (
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

func ItemStatus(s string) string {
	if s == "" {
		return smriti.ItemOpen
	}
	return s
}

// itemsIn validates proposed items.
func ItemsIn(in []ItemIn) ([]smriti.Item, error) {
	if len(in) > MaxItemsIn {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items has %d entries; at most %d are allowed", len(in), MaxItemsIn)
	}
	out := make([]smriti.Item, 0, len(in))
	for i, it := range in {
		kind, err := smriti.ParseItemKind(it.Kind)
		if err != nil {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d]: %s", i, smriti.ErrorMessage(err))
		}
		id := strings.TrimSpace(it.ID)
		if id != "" && !smriti.ValidItemID(id) {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d].id %q is not an item id (a kind letter, \"-\" and 6 to 16 hex digits)", i, textutil.Truncate(id, 30))
		}
		st := strings.TrimSpace(it.Status)
		switch st {
		case "":
			st = smriti.ItemOpen
		case smriti.ItemOpen, smriti.ItemDone, smriti.ItemAnswered, smriti.ItemRetracted, smriti.ItemSuperseded:
		default:
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d].status must be open, done, answered, retracted or superseded", i)
		}
		if len([]rune(it.Text)) > smriti.MaxItemChars {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d].text exceeds %d characters", i, smriti.MaxItemChars)
		}
		if err := smriti.ValidateRefs(it.Refs); err != nil {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d].%s", i, smriti.ErrorMessage(err))
		}
		item := smriti.Item{ID: id, Kind: kind, Text: it.Text, Status: st, Supersedes: it.Supersedes, Change: it.Change, Refs: it.Refs}
		if it.Origin != nil {
			o := *it.Origin
			o.CheckpointID = nil // the server says where an item was introduced
			item.Origin = o
		}
		for _, s := range item.Supersedes {
			if !smriti.ValidItemID(s) {
				return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "items[%d].supersedes holds %q, which is not an item id", i, textutil.Truncate(s, 30))
			}
		}
		out = append(out, item)
	}
	return out, nil
}

// MaxItemsIn bounds the items a checkpoint write may propose.
const MaxItemsIn = 1000
