package gitremote

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"smriti"
)

// index maps the checkpoints of a remote's space: checkpoint id to
// commit, and checkpoint hash to commit. It may hold checkpoints no head
// reaches any more (a branch removed); those are never asked for.
type index struct {
	commitOf map[smriti.ID]string
	byHash   map[string]string
	hashAt   map[string]string // commit → checkpoint hash
}

func newIndex() *index {
	return &index{commitOf: map[smriti.ID]string{}, byHash: map[string]string{}, hashAt: map[string]string{}}
}

func (ix *index) add(commit, hash string, id smriti.ID) {
	ix.commitOf[id], ix.byHash[hash], ix.hashAt[commit] = commit, commit, hash
}

// The index is kept in the cache, one file per remote and space: a line
// "tips <commit>…" naming the heads it covers, then "<commit> <hash> <id>"
// per checkpoint. Bringing it up to date reads only the commits after its
// tips, so its cost follows what changed, not the history.
func (p *Peer) indexFile(st *state) string {
	sum := sha256.Sum256([]byte(st.ns))
	return filepath.Join(p.cache.Dir, "smriti-index", hex.EncodeToString(sum[:12]))
}

func (p *Peer) index(ctx context.Context, st *state) (*index, error) {
	if len(st.heads) == 0 {
		return newIndex(), nil
	}
	file := p.indexFile(st)
	ix, tips := p.loadIndex(file)
	args := []string{"log", "--format=%H %s"}
	current := map[string]bool{}
	for _, h := range st.heads {
		args = append(args, h.commit)
		current[h.commit] = true
	}
	var known []string
	for _, t := range tips {
		if _, err := p.cache.run(ctx, nil, "cat-file", "-e", t+"^{commit}"); err == nil {
			known = append(known, t)
		}
	}
	if len(known) > 0 {
		args = append(append(args, "--not"), known...)
	}
	out, err := p.cache.run(ctx, nil, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	fresh := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		commit, subject, _ := strings.Cut(line, " ")
		hash, id, ok := parseCheckpointSubject(subject)
		if !ok {
			return nil, p.corrupt(fmt.Sprintf("commit %s is not a checkpoint commit", commit))
		}
		ix.add(commit, hash, id)
		fresh++
	}
	if fresh > 0 || len(known) != len(current) {
		// The index is a cache of what git holds: one that cannot be
		// written is rebuilt next time.
		_ = p.saveIndex(file, st, ix)
	}
	return ix, nil
}

// loadIndex reads the index file and its tips; an empty index and no
// tips when there is no file or it is unreadable (the whole history is
// then read again).
func (p *Peer) loadIndex(file string) (*index, []string) {
	f, err := os.Open(file)
	if err != nil {
		return newIndex(), nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "tips ") {
		return newIndex(), nil
	}
	tips := strings.Fields(strings.TrimPrefix(sc.Text(), "tips "))
	ix := newIndex()
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			return newIndex(), nil
		}
		id, err := smriti.ParseID("checkpoint_id", fs[2])
		if err != nil {
			return newIndex(), nil
		}
		ix.add(fs[0], fs[1], id)
	}
	if sc.Err() != nil {
		return newIndex(), nil
	}
	return ix, tips
}

// saveIndex writes the index whole, through a temporary file renamed over
// the old one, so a reader never sees half of it.
func (p *Peer) saveIndex(file string, st *state, ix *index) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "index-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	w.WriteString("tips")
	for _, h := range st.heads {
		w.WriteString(" " + h.commit)
	}
	w.WriteString("\n")
	for id, commit := range ix.commitOf {
		fmt.Fprintf(w, "%s %s %s\n", commit, ix.hashAt[commit], id)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
