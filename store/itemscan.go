package store

import (
	"encoding/json"
	"fmt"

	"smriti"
	"smriti/store/internal/dbx"
)

// itemColCount is how many columns itemCols names.
const itemColCount = 23

// itemRow reads rows of itemCols. A space's export reads thirty or so
// item rows a checkpoint, most of their columns NULL: each row is scanned
// once as plain driver values and converted here, instead of through a
// sql.Scanner (and a second conversion) for each nullable column, and a
// run of rows of one checkpoint parses its id once.
type itemRow struct {
	vals   [itemColCount]any
	ptrs   []any
	lastCP string
	cp     smriti.ID
}

func newItemRow() *itemRow {
	r := &itemRow{ptrs: make([]any, itemColCount)}
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return r
}

// scan reads one row from row, whose Scan is given the row's itemCols
// destinations (and may add its own after them).
func (r *itemRow) scan(row interface{ Scan(...any) error }) (smriti.ID, smriti.Item, error) {
	var it smriti.Item
	if err := row.Scan(r.ptrs...); err != nil {
		return smriti.NilID, it, err
	}
	v := &r.vals
	cp, err := r.checkpoint(v[0])
	if err != nil {
		return cp, it, err
	}
	var c dbx.Cols
	it.ID, it.Kind, it.Text, it.Status = c.Str(v[1]), smriti.ItemKind(c.Str(v[2])), c.Str(v[3]), c.Str(v[4])
	it.Supersedes = c.Strings(v[5])
	op := c.Str(v[6])
	it.Origin = smriti.ItemOrigin{CheckpointID: c.ID(v[14]), SessionID: c.ID(v[15]), FromSeq: c.Int(v[16]),
		ToSeq: c.Int(v[17]), Quote: c.OptStr(v[18]), AuthorAgent: c.OptStr(v[19]), Model: c.OptStr(v[20])}
	if op != "" {
		it.Change = &smriti.ItemChange{Op: op, Before: c.OptStr(v[7]), By: c.OptStr(v[8]), Reason: c.OptStr(v[9]),
			Source: smriti.ItemSource{SessionID: c.ID(v[10]), FromSeq: c.Int(v[11]), ToSeq: c.Int(v[12]), Quote: c.OptStr(v[13])}}
		if merge := c.OptBytes(v[21]); merge != nil {
			var m smriti.ItemMerge
			if err := json.Unmarshal(merge, &m); err != nil {
				return cp, it, fmt.Errorf("item %s: merge record: %w", it.ID, err)
			}
			it.Change.Merge = &m
		}
	}
	if b := c.OptBytes(v[22]); b != nil {
		var refs []smriti.ItemRef
		if err := json.Unmarshal(b, &refs); err != nil {
			return cp, it, fmt.Errorf("item %s: refs: %w", it.ID, err)
		}
		it.Refs = refs
	}
	if err := c.Err(); err != nil {
		return cp, it, fmt.Errorf("item %s: %w", it.ID, err)
	}
	return cp, it, nil
}

// checkpoint is the row's checkpoint id, parsed once for a run of rows
// that share it.
func (r *itemRow) checkpoint(v any) (smriti.ID, error) {
	if s, ok := v.(string); ok && s == r.lastCP && s != "" {
		return r.cp, nil
	}
	var c dbx.Cols
	id := c.ID(v)
	if err := c.Err(); err != nil {
		return smriti.NilID, fmt.Errorf("item row: %w", err)
	}
	if id == nil {
		return smriti.NilID, fmt.Errorf("item row: no checkpoint id")
	}
	r.cp, r.lastCP = *id, ""
	if s, ok := v.(string); ok {
		r.lastCP = s
	}
	return r.cp, nil
}
