package smriti

// ItemValidity is one version of an item (its text and status) and the
// checkpoints between which a line of work held it: From is the event that
// introduced or changed it to this version, To the next event on the same
// branch that changed, resolved, retracted or superseded it (nil while that
// branch still holds it so).
type ItemValidity struct {
	Text   string
	Status string
	Branch string
	From   *ItemEvent
	To     *ItemEvent
}

// Validity reads the history of itemID as the versions it went through, oldest first. Versions a merge
// turned down are not versions of the item.
func (evs ItemHistory) Validity(itemID string) []ItemValidity {
	var out []ItemValidity
	open := map[string]int{} // branch → index in out of its current version
	for i := range evs {
		ev := &evs[i]
		if ev.Rejected {
			continue
		}
		if j, ok := open[ev.BranchName]; ok {
			out[j].To = ev
			delete(open, ev.BranchName)
		}
		if ev.Item.ID == itemID && ev.Item.Live() {
			open[ev.BranchName] = len(out)
			out = append(out, ItemValidity{Text: ev.Item.Text, Status: ev.Item.StatusOrOpen(), Branch: ev.BranchName, From: ev})
		}
	}
	return out
}
