package coderef

import (
	"fmt"
	"slices"

	"smriti"
)

// Finding is one ref of one item, checked.
type Finding struct {
	ItemID string `json:"item_id"`
	// Version is the hash of the checkpoint that introduced the version of
	// the item checked ("" when unknown): with ItemID, its item@version
	// name.
	Version string          `json:"version,omitempty"`
	Kind    smriti.ItemKind `json:"kind"`
	Text    string          `json:"text"`
	Ref     smriti.ItemRef  `json:"ref"`
	Status  Status          `json:"status"`
	// Lines is where the cited text is now (see Verdict.Lines).
	Lines *smriti.LineRange `json:"lines"`
	// CommitsSince counts the commits since Ref.Commit that touched the
	// file (changed, moved and gone refs); -1 when git could not say
	// (the commit is not in this repository).
	CommitsSince int `json:"commits_since"`
	// Added and Deleted are the file's diff stat from Ref.Commit to HEAD
	// (lines), for refs that are not fresh.
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}

// Reason says in a few words why a finding is not fresh ("" when it is).
func (f *Finding) Reason() string {
	where := f.Ref.String()
	switch f.Status {
	case Moved:
		return fmt.Sprintf("%s moved to lines %s", where, f.Lines)
	case Changed:
		s := fmt.Sprintf("%s changed", where)
		if f.Lines != nil && f.Ref.Symbol != nil {
			s += fmt.Sprintf(" (now lines %s)", f.Lines)
		}
		return s + f.since()
	case Gone:
		return fmt.Sprintf("%s is gone: the file was deleted", where) + f.since()
	}
	return ""
}

func (f *Finding) since() string {
	c := f.Ref.Commit
	if len(c) > 7 {
		c = c[:7]
	}
	switch {
	case f.CommitsSince < 0:
		return fmt.Sprintf("; commit %s is not in this repository", c)
	case f.CommitsSince == 1:
		return fmt.Sprintf("; 1 commit since %s, +%d -%d", c, f.Added, f.Deleted)
	}
	return fmt.Sprintf("; %d commits since %s, +%d -%d", f.CommitsSince, c, f.Added, f.Deleted)
}

// ItemCheck is an item's refs, checked: its worst status first.
type ItemCheck struct {
	ItemID string `json:"item_id"`
	// Version is as in Finding.
	Version  string          `json:"version,omitempty"`
	Kind     smriti.ItemKind `json:"kind"`
	Text     string          `json:"text"`
	Status   Status          `json:"status"`
	Findings []Finding       `json:"refs"`
}

// ByItem groups findings by item (in the order items first appear) with
// each item's worst status, the items with the worst news first (stable
// otherwise).
func ByItem(fs []Finding) []ItemCheck {
	var out []ItemCheck
	at := map[string]int{}
	for _, f := range fs {
		i, ok := at[f.ItemID]
		if !ok {
			i = len(out)
			at[f.ItemID] = i
			out = append(out, ItemCheck{ItemID: f.ItemID, Version: f.Version, Kind: f.Kind, Text: f.Text, Status: Fresh})
		}
		out[i].Findings = append(out[i].Findings, f)
		if f.Status.Worse(out[i].Status) {
			out[i].Status = f.Status
		}
	}
	slices.SortStableFunc(out, func(a, b ItemCheck) int { return b.Status.rank() - a.Status.rank() })
	return out
}

// Name is how the check cites its item: the version's name
// (item@version, see smriti.ItemVersion.Short) when known, else the id.
func (c *ItemCheck) Name() string {
	if c.Version == "" {
		return c.ItemID
	}
	return smriti.ItemVersion{ItemID: c.ItemID, Hash: c.Version}.Short()
}

// Stale is the checks that are not fresh.
func Stale(cs []ItemCheck) []ItemCheck {
	var out []ItemCheck
	for _, c := range cs {
		if c.Status != Fresh {
			out = append(out, c)
		}
	}
	return out
}

// Reasons is an item's non-fresh findings' reasons, joined by "; ".
func (c *ItemCheck) Reasons() string {
	s := ""
	for i := range c.Findings {
		if r := c.Findings[i].Reason(); r != "" {
			if s != "" {
				s += "; "
			}
			s += r
		}
	}
	return s
}
