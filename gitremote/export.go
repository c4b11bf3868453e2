package gitremote

import (
	"context"
	"sort"

	"smriti"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
)

// Export returns the space as a bundle, for a clone: every checkpoint of
// every branch (parents first), then each session with its turns in
// order. The repository never held a private session, so neither does the
// bundle.
func (p *Peer) Export(ctx context.Context, space smriti.ID) (remote.ReadCloser, error) {
	defer p.cache.lock()()
	st, err := p.copyOf(ctx, space)
	if err != nil {
		return nil, err
	}
	all, err := p.revList(ctx, st.heads, nil)
	if err != nil {
		return nil, err
	}
	ix, err := p.index(ctx, st)
	if err != nil {
		return nil, err
	}
	entries, err := p.logSince(ctx, st, -1)
	if err != nil {
		return nil, err
	}
	return p.spool(ctx, portability.NewBundleWriter, func(b *blobs, w *portability.BundleWriter) error {
		return p.writeBundle(b, w, st, ix, all, entries)
	})
}

// writeBundle writes the bundle. Its records come checkpoints first, so
// each checkpoint and turn carries its log order — the place the pushes
// gave it — and a clone keeps every turn on its side of each checkpoint.
func (p *Peer) writeBundle(b *blobs, w *portability.BundleWriter, st *state, ix *index, all []string, entries []logEntry) error {
	sp, err := p.space(b, st)
	if err != nil {
		return err
	}
	if err := w.Write(records.BundleRecord{Type: records.RecordSpace, Space: sp}); err != nil {
		return err
	}
	// A session's turns may have come in several pushes, and a turn more
	// than once (a copy pushes what it pulled): gather them by session.
	// Two copies that both added a turn at one place of a session each
	// pushed theirs; the first pushed keeps the place, as the first push
	// to a server would.
	var sessionOrder []smriti.ID
	sessions := map[smriti.ID]*records.BundleRecord{}
	turns := map[smriti.ID][]*records.BundleRecord{}
	placed := map[smriti.ID]map[int64]bool{}
	order := map[smriti.ID]int64{}
	var next int64
	for _, e := range entries {
		err := p.logLines(b, e.commit, func(l logLine, raw []byte) error {
			if l.Type == checkpointAt {
				if _, ok := order[l.ID]; !ok && ix.commitOf[l.ID] != "" {
					order[l.ID], next = next, next+1
				}
				return nil
			}
			rec, id, err := decodeLogRecord(raw)
			if err != nil {
				return err
			}
			if _, dup := sessions[id]; dup {
				return nil
			}
			if _, dup := order[id]; dup {
				return nil
			}
			if rec.Session != nil {
				sessionOrder = append(sessionOrder, id)
				sessions[id] = rec
			} else {
				sid := rec.Turn.SessionID
				if placed[sid] == nil {
					placed[sid] = map[int64]bool{}
				}
				if placed[sid][rec.Turn.Seq] {
					return nil
				}
				placed[sid][rec.Turn.Seq] = true
				order[id], next = next, next+1
				turns[sid] = append(turns[sid], rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	rank := logRanks(ix, all, sessionOrder, turns, order, next)
	var counts records.BundleCounts
	for _, c := range all {
		rec, err := p.checkpoint(b, c)
		if err != nil {
			return err
		}
		n := rank[rec.Checkpoint.ID]
		rec.Checkpoint.LogOrder = &n
		counts.Checkpoints++
		counts.Notes += len(rec.Checkpoint.Notes)
		if err := w.Write(*rec); err != nil {
			return err
		}
	}
	for _, id := range sessionOrder {
		counts.Sessions++
		if err := w.Write(*sessions[id]); err != nil {
			return err
		}
		ts := turns[id]
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].Turn.Seq < ts[j].Turn.Seq })
		for _, t := range ts {
			n := rank[t.Turn.ID]
			t.Turn.LogOrder = &n
			counts.Turns++
			if err := w.Write(*t); err != nil {
				return err
			}
		}
	}
	return w.Write(records.BundleRecord{Type: records.RecordEnd, End: &counts})
}

// logRanks numbers the bundle's checkpoints and turns 0 to n-1 in the
// order the log gave them (a checkpoint no push placed comes last, parents
// first), as an import wants.
func logRanks(ix *index, all []string, sessions []smriti.ID, turns map[smriti.ID][]*records.BundleRecord, order map[smriti.ID]int64, next int64) map[smriti.ID]int64 {
	idOf := make(map[string]smriti.ID, len(ix.commitOf))
	for id, c := range ix.commitOf {
		idOf[c] = id
	}
	type placed struct {
		id smriti.ID
		at int64
	}
	var list []placed
	for _, c := range all {
		id := idOf[c]
		at, ok := order[id]
		if !ok {
			at, next = next, next+1
		}
		list = append(list, placed{id, at})
	}
	for _, s := range sessions {
		for _, t := range turns[s] {
			list = append(list, placed{t.Turn.ID, order[t.Turn.ID]})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].at < list[j].at })
	rank := make(map[smriti.ID]int64, len(list))
	for i, p := range list {
		rank[p.id] = int64(i)
	}
	return rank
}
