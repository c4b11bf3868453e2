package smriti

import (
	"smriti/internal/textutil"
	"strings"
	"time"
)

// State as of: what a line of work held at one of its checkpoints, each
// item with the stretch of that line over which it was live.

// Line is a line of work: a branch head's first-parent chain, oldest
// first.
type Line []*Checkpoint

// ItemSpan is one item of the state as of a checkpoint and when it held on
// the line: ValidFrom is the first checkpoint of the unbroken run of
// checkpoints, ending at the one asked for, that hold the item live with
// the same text and status; ValidTo the first later checkpoint on the line
// that no longer does — it changed the item, resolved or retracted it —
// (nil while the line's head still holds it so).
type ItemSpan struct {
	Item      Item
	ValidFrom *Checkpoint
	ValidTo   *Checkpoint
}

// StateAt returns the live items of line[at], in its order, with their
// spans on line. Each checkpoint of line must carry its Items.
func (line Line) StateAt(at int) []ItemSpan {
	// heldAt[i] maps each item line[i] holds live to its text and status.
	heldAt := make([]map[string]string, len(line))
	for i, c := range line {
		m := make(map[string]string, len(c.Items))
		for j := range c.Items {
			if it := &c.Items[j]; it.Live() {
				m[it.ID] = it.StatusOrOpen() + " " + it.Text
			}
		}
		heldAt[i] = m
	}
	holds := func(i int, id, version string) bool {
		v, ok := heldAt[i][id]
		return ok && v == version
	}
	var out []ItemSpan
	for _, it := range line[at].Items {
		if !it.Live() {
			continue
		}
		version := heldAt[at][it.ID]
		from := at
		for from > 0 && holds(from-1, it.ID, version) {
			from--
		}
		span := ItemSpan{Item: it, ValidFrom: line[from]}
		for to := at + 1; to < len(line); to++ {
			if !holds(to, it.ID, version) {
				span.ValidTo = line[to]
				break
			}
		}
		out = append(out, span)
	}
	return out
}

// Index returns the index in line (oldest first) of the checkpoint an
// as-of reference names: a time (RFC 3339, or a date YYYY-MM-DD meaning the
// end of that day in UTC) picks the newest checkpoint written at or before
// it; anything else is matched against the checkpoints' ids and hashes as
// a prefix of at least MinRefPrefix characters. ENOTFOUND when nothing on
// the line matches; EINVALID when the reference is too short or ambiguous.
func (line Line) Index(ref string) (int, error) {
	ref = strings.TrimSpace(ref)
	if t, ok := AsOfTime(ref); ok {
		at := -1
		for i, c := range line {
			if !c.CreatedAt.After(t) {
				at = i
			}
		}
		if at < 0 {
			return -1, Errorf(ENOTFOUND, "no checkpoint on this line of work was written at or before %s", t.UTC().Format(time.RFC3339))
		}
		return at, nil
	}
	p := strings.ToLower(ref)
	if len(p) < MinRefPrefix {
		return -1, Errorf(EINVALID, "as_of %q: give a checkpoint id or hash (at least %d characters) or an RFC 3339 time", textutil.Truncate(ref, 64), MinRefPrefix)
	}
	found := -1
	for i, c := range line {
		if strings.HasPrefix(c.ID.String(), p) || strings.HasPrefix(c.Hash, p) {
			if found >= 0 {
				return -1, Errorf(EINVALID, "as_of %q matches more than one checkpoint; give more characters", textutil.Truncate(ref, 64))
			}
			found = i
		}
	}
	if found < 0 {
		return -1, Errorf(ENOTFOUND, "no checkpoint on this line of work matches %q", textutil.Truncate(ref, 64))
	}
	return found, nil
}

// AsOfTime reads an as-of reference as a time: RFC 3339, or a date
// (YYYY-MM-DD) meaning the last instant of that day in UTC.
func AsOfTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Add(24*time.Hour - time.Nanosecond), true
	}
	return time.Time{}, false
}
