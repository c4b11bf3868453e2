package gitremote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"smriti"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
)

// Refs returns the repository's branch heads of the space and its log
// position (the number of pushes it holds) as the turn cursor.
func (p *Peer) Refs(ctx context.Context, space smriti.ID) ([]remote.Head, int64, error) {
	defer p.cache.lock()()
	if err := p.refresh(ctx, space); err != nil {
		return nil, 0, err
	}
	st, err := p.read(ctx, space)
	if err != nil {
		return nil, 0, err
	}
	return wireHeads(st.heads), st.logSeq, nil
}

func wireHeads(hs []head) []remote.Head {
	out := make([]remote.Head, 0, len(hs))
	for _, h := range hs {
		out = append(out, remote.Head{Branch: h.branch, CheckpointID: h.id, Hash: h.hash})
	}
	return out
}

// Fetch answers what want asks for as a sync stream: the checkpoints of
// the wanted branches the asker lacks (parents first), with the sessions
// and turns pushed after want.Since in the order they were pushed.
func (p *Peer) Fetch(ctx context.Context, space smriti.ID, want remote.Want) (remote.ReadCloser, error) {
	defer p.cache.lock()()
	st, err := p.copyOf(ctx, space)
	if err != nil {
		return nil, err
	}
	ix, err := p.index(ctx, st)
	if err != nil {
		return nil, err
	}
	wanted := st.heads
	if len(want.Branches) > 0 {
		keep := map[string]bool{}
		for _, b := range want.Branches {
			keep[b] = true
		}
		wanted = nil
		for _, h := range st.heads {
			if keep[h.branch] {
				wanted = append(wanted, h)
			}
		}
	}
	var haves []string
	for _, h := range want.Haves {
		if c, ok := ix.byHash[h]; ok {
			haves = append(haves, c)
		}
	}
	missing, err := p.revList(ctx, wanted, haves)
	if err != nil {
		return nil, err
	}
	entries, err := p.logSince(ctx, st, want.Since)
	if err != nil {
		return nil, err
	}
	return p.spool(ctx, portability.NewSyncWriter, func(b *blobs, w *portability.BundleWriter) error {
		return p.writeSync(b, w, st, ix, missing, entries)
	})
}

// revList lists the commits reachable from heads and not from haves,
// parents first.
func (p *Peer) revList(ctx context.Context, heads []head, haves []string) ([]string, error) {
	if len(heads) == 0 {
		return nil, nil
	}
	args := []string{"rev-list", "--topo-order", "--reverse"}
	for _, h := range heads {
		args = append(args, h.commit)
	}
	if len(haves) > 0 {
		args = append(append(args, "--not"), haves...)
	}
	out, err := p.cache.run(ctx, nil, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// spool writes a stream (a sync stream, or a bundle for a clone) into a
// temporary file and returns it to be read (removed when closed), so the
// cache's lock is not held while the asker reads.
func (p *Peer) spool(ctx context.Context, start func(io.Writer) (*portability.BundleWriter, error), write func(*blobs, *portability.BundleWriter) error) (remote.ReadCloser, error) {
	f, err := os.CreateTemp("", "smriti-gitremote-*")
	if err != nil {
		return nil, fmt.Errorf("git remote: %w", err)
	}
	fail := func(err error) (remote.ReadCloser, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	b, err := p.cache.openBlobs(ctx)
	if err != nil {
		return fail(err)
	}
	defer b.close()
	w, err := start(f)
	if err != nil {
		return fail(err)
	}
	if err := write(b, w); err != nil {
		return fail(err)
	}
	if err := w.Close(); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	return &tempFile{File: f}, nil
}

type tempFile struct{ *os.File }

func (t *tempFile) Close() error {
	err := t.File.Close()
	os.Remove(t.Name())
	return err
}

// writeSync writes the space, then the log's records in push order — each
// missing checkpoint where its marker falls, after every missing
// checkpoint before it in the topological order — then the missing
// checkpoints no marker placed, and the end record.
func (p *Peer) writeSync(b *blobs, w *portability.BundleWriter, st *state, ix *index, missing []string, entries []logEntry) error {
	sp, err := p.space(b, st)
	if err != nil {
		return err
	}
	if err := w.Write(records.BundleRecord{Type: records.RecordSpace, Space: sp}); err != nil {
		return err
	}
	var counts records.BundleCounts
	pos := map[string]int{}
	for i, c := range missing {
		pos[c] = i
	}
	next := 0
	emitThrough := func(i int) error {
		for ; next <= i; next++ {
			rec, err := p.checkpoint(b, missing[next])
			if err != nil {
				return err
			}
			counts.Checkpoints++
			if err := w.Write(*rec); err != nil {
				return err
			}
		}
		return nil
	}
	seen := map[smriti.ID]bool{}
	for _, e := range entries {
		err := p.logLines(b, e.commit, func(l logLine, raw []byte) error {
			if l.Type == checkpointAt {
				if i, ok := pos[ix.commitOf[l.ID]]; ok {
					return emitThrough(i)
				}
				return nil
			}
			rec, id, err := decodeLogRecord(raw)
			if err != nil || seen[id] {
				return err
			}
			seen[id] = true
			if rec.Type == records.RecordSession {
				counts.Sessions++
			} else {
				counts.Turns++
			}
			return w.Write(*rec)
		})
		if err != nil {
			return err
		}
	}
	if err := emitThrough(len(missing) - 1); err != nil {
		return err
	}
	heads := make([]records.SyncHead, 0, len(st.heads))
	for _, h := range st.heads {
		heads = append(heads, records.SyncHead{Branch: h.branch, CheckpointID: h.id.String(), CommitHash: h.hash})
	}
	sort.Slice(heads, func(i, j int) bool { return heads[i].Branch < heads[j].Branch })
	return w.Write(records.BundleRecord{Type: records.RecordSyncEnd, SyncEnd: &records.SyncEnd{Counts: counts, Cursor: st.logSeq, Heads: heads}})
}

// decodeLogRecord reads a session or turn line of the log.
func decodeLogRecord(raw []byte) (*records.BundleRecord, smriti.ID, error) {
	var rec records.BundleRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, smriti.NilID, err
	}
	switch {
	case rec.Type == records.RecordSession && rec.Session != nil:
		return &rec, rec.Session.ID, nil
	case rec.Type == records.RecordTurn && rec.Turn != nil:
		return &rec, rec.Turn.ID, nil
	}
	return nil, smriti.NilID, smriti.Errorf(smriti.EUPSTREAM, "the git repository's log holds a %q record where a session or turn belongs", textutil.Truncate(rec.Type, 40))
}

// Propose is refused: a git repository holds records, not a review queue.
func (p *Peer) Propose(context.Context, smriti.ID, *smriti.ID, smriti.ProposalDraft) (smriti.ID, error) {
	return smriti.NilID, smriti.Errorf(smriti.EUNPROCESSABLE, "a git repository cannot hold proposals; push without --propose, or push --propose to a Smriti server")
}
