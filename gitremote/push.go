package gitremote

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"smriti"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
)

// pushAttempts bounds how often a push is rebuilt when another copy
// appended to the log (not the branch) between the read and the push.
const pushAttempts = 4

// Push stores a sync stream in the repository and moves the branch's ref
// from push.Expect to push.Head in one atomic git push whose leases are
// the values read: a repository whose branch moved answers ECONFLICT
// naming its head; a push whose head is already there stores nothing.
func (p *Peer) Push(ctx context.Context, space smriti.ID, push remote.Push, body remote.Reader) (remote.Counts, error) {
	defer p.cache.lock()()
	spool, err := os.CreateTemp("", "smriti-gitremote-push-*")
	if err != nil {
		return remote.Counts{}, fmt.Errorf("git remote: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	if _, err := io.Copy(spool, body); err != nil {
		return remote.Counts{}, smriti.Errorf(smriti.EINVALID, "the push's records could not be read (%v); run it again", err)
	}
	for attempt := 0; attempt < pushAttempts; attempt++ {
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return remote.Counts{}, fmt.Errorf("git remote: %w", err)
		}
		counts, retry, err := p.pushOnce(ctx, space, push, spool)
		if !retry {
			return counts, err
		}
	}
	return remote.Counts{}, smriti.Errorf(smriti.ECONFLICT, "the git repository %s kept changing while this push was made; push again", p.url)
}

// moved is the ECONFLICT of a branch that is not where the pusher saw it.
func moved(push remote.Push, theirs *head) error {
	var h *string
	data := map[string]any{"branch": push.Branch, "remote_head": nil, "expected_head": push.Expect}
	if theirs != nil {
		h = &theirs.hash
		data["remote_head"] = theirs.hash
	}
	e := remote.MovedError(push.Branch, h, push.Expect, "")
	e.Data = data
	return e
}

// pushOnce makes one attempt; retry is true when the log moved under it.
func (p *Peer) pushOnce(ctx context.Context, space smriti.ID, push remote.Push, body io.Reader) (remote.Counts, bool, error) {
	if err := p.refresh(ctx, space); err != nil {
		return remote.Counts{}, false, err
	}
	st, err := p.read(ctx, space)
	if err != nil {
		return remote.Counts{}, false, err
	}
	var old *head
	for i := range st.heads {
		if st.heads[i].branch == push.Branch {
			old = &st.heads[i]
		}
	}
	if (old == nil) != (push.Expect == nil) || (old != nil && old.hash != *push.Expect) {
		if old != nil && old.hash == push.Head {
			return remote.Counts{}, false, nil
		}
		return remote.Counts{}, false, moved(push, old)
	}
	if old != nil && old.hash == push.Head {
		return remote.Counts{}, false, nil
	}
	ix, err := p.index(ctx, st)
	if err != nil {
		return remote.Counts{}, false, err
	}
	imp, err := p.buildImport(body, st, ix, push)
	if err != nil {
		return remote.Counts{}, false, err
	}
	newHead, newLog, err := p.runImport(ctx, imp)
	if err != nil {
		return remote.Counts{}, false, err
	}
	if old != nil {
		// Exit status 1: the branch's head is not in the new head's history.
		_, err := p.cache.run(ctx, nil, "merge-base", "--is-ancestor", old.commit, newHead)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return remote.Counts{}, false, moved(push, old)
		}
		if err != nil {
			return remote.Counts{}, false, err
		}
	}
	headRef := "/heads/" + branchRef(push.Branch)
	args := []string{"push", "--atomic", "--porcelain", "--quiet", "--no-verify", lease(remoteNamespace(space)+headRef, old)}
	refspecs := []string{newHead + ":" + remoteNamespace(space) + headRef}
	if newLog != "" {
		oldLog := st.logTip
		args = append(args, "--force-with-lease="+remoteNamespace(space)+"/log:"+oldLog)
		refspecs = append(refspecs, newLog+":"+remoteNamespace(space)+"/log")
	}
	out, err := p.cache.run(ctx, nil, append(append(args, "--", p.loc), refspecs...)...)
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && (strings.Contains(string(out), "[rejected]") || strings.Contains(ge.stderr, "stale info") || strings.Contains(string(out), "stale info")) {
			return remote.Counts{}, true, nil
		}
		return remote.Counts{}, false, p.unreachable("push to", err)
	}
	// The cache now mirrors what the repository holds, and keeps the new
	// commits reachable.
	ns := namespace(p.url, space)
	if _, err := p.cache.run(ctx, nil, "update-ref", ns+headRef, newHead); err != nil {
		return remote.Counts{}, false, err
	}
	if newLog != "" {
		if _, err := p.cache.run(ctx, nil, "update-ref", ns+"/log", newLog); err != nil {
			return remote.Counts{}, false, err
		}
	}
	return imp.counts, false, nil
}

// lease is the compare-and-swap on ref: it must be old's commit, or not
// exist when old is nil.
func lease(ref string, old *head) string {
	if old == nil {
		return "--force-with-lease=" + ref + ":"
	}
	return "--force-with-lease=" + ref + ":" + old.commit
}

// fastImport is a git fast-import script being written: the checkpoint
// commits and the log commit of one push.
type fastImport struct {
	buf     bytes.Buffer
	mark    int
	scratch string
	// commitOf holds the commit (a hash, or a :mark) of each checkpoint
	// the repository or this push holds.
	commitOf map[smriti.ID]string
	headMark string
	logMark  string
	counts   remote.Counts
}

func (f *fastImport) blob(data []byte) string {
	f.mark++
	fmt.Fprintf(&f.buf, "blob\nmark :%d\ndata %d\n", f.mark, len(data))
	f.buf.Write(data)
	f.buf.WriteByte('\n')
	return ":" + strconv.Itoa(f.mark)
}

// commit writes a commit of one file on a reset scratch ref (so a commit
// without parents has none) and returns its mark.
func (f *fastImport) commit(at time.Time, msg string, parents []string, files map[string]string) string {
	f.mark++
	stamp := fmt.Sprintf("Smriti <smriti@localhost> %d +0000", at.Unix())
	fmt.Fprintf(&f.buf, "reset %s\ncommit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n", f.scratch, f.scratch, f.mark, stamp, stamp, len(msg), msg)
	for i, p := range parents {
		if i == 0 {
			fmt.Fprintf(&f.buf, "from %s\n", p)
		} else {
			fmt.Fprintf(&f.buf, "merge %s\n", p)
		}
	}
	f.buf.WriteString("deleteall\n")
	for name, blob := range files {
		fmt.Fprintf(&f.buf, "M 100644 %s %s\n", blob, name)
	}
	f.buf.WriteByte('\n')
	return ":" + strconv.Itoa(f.mark)
}

// buildImport reads the pushed stream and writes, for each checkpoint the
// repository lacks, a commit on its parents' commits, and one log commit
// holding the space record and the sessions and turns in stream order.
func (p *Peer) buildImport(body io.Reader, st *state, ix *index, push remote.Push) (*fastImport, error) {
	rd, err := portability.NewSyncReader(body)
	if err != nil {
		return nil, err
	}
	var tag [6]byte
	_, _ = rand.Read(tag[:])
	f := &fastImport{scratch: "refs/smriti-import/" + hex.EncodeToString(tag[:]), commitOf: map[smriti.ID]string{}}
	for id, c := range ix.commitOf {
		f.commitOf[id] = c
	}
	hashCommit := map[string]string{}
	for h, c := range ix.byHash {
		hashCommit[h] = c
	}
	var log bytes.Buffer
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch rec.Type {
		case records.RecordCheckpoint:
			c := rec.Checkpoint
			if _, ok := f.commitOf[c.ID]; ok {
				continue
			}
			var parents []string
			for _, pid := range []*smriti.ID{c.ParentID, c.MergeParentID} {
				if pid == nil {
					continue
				}
				pc, ok := f.commitOf[*pid]
				if !ok {
					return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "checkpoint %s names parent %s, which neither the git repository nor this push holds; nothing was pushed", c.ID, *pid)
				}
				parents = append(parents, pc)
			}
			data, err := json.Marshal(rec)
			if err != nil {
				return nil, err
			}
			msg := fmt.Sprintf("%s%s %s\n\n%s\n", checkpointSubject, c.CommitHash, c.ID, c.Message)
			mark := f.commit(c.CreatedAt, msg, parents, map[string]string{checkpointFile: f.blob(data)})
			f.commitOf[c.ID], hashCommit[c.CommitHash] = mark, mark
			f.counts.Checkpoints++
			fmt.Fprintf(&log, `{"type":%q,"id":%q}`+"\n", checkpointAt, c.ID.String())
		case records.RecordSession, records.RecordTurn:
			data, err := json.Marshal(rec)
			if err != nil {
				return nil, err
			}
			log.Write(data)
			log.WriteByte('\n')
			if rec.Type == records.RecordSession {
				f.counts.Sessions++
			} else {
				f.counts.Turns++
			}
		}
	}
	if rd.End() == nil {
		return nil, smriti.Errorf(smriti.EINVALID, "the pushed records end before their end record; nothing was pushed")
	}
	head, ok := hashCommit[push.Head]
	if !ok {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "the pushed records do not hold the head %s they claim; nothing was pushed", textutil.ShortHash(push.Head))
	}
	f.headMark = head
	if log.Len() > 0 || st.logTip == "" {
		spaceJSON, err := json.Marshal(rd.Space())
		if err != nil {
			return nil, err
		}
		var parents []string
		if st.logTip != "" {
			parents = []string{st.logTip}
		}
		files := map[string]string{logFile: f.blob(log.Bytes()), spaceFile: f.blob(spaceJSON)}
		f.logMark = f.commit(time.Now(), fmt.Sprintf("%s%d\n", logSubject, st.logSeq+1), parents, files)
	}
	return f, nil
}

// runImport writes the script's objects into the cache and returns the
// commits of the new head and the new log commit ("" when none).
func (p *Peer) runImport(ctx context.Context, f *fastImport) (string, string, error) {
	if f.mark == 0 {
		return f.headMark, "", nil
	}
	marks, err := os.CreateTemp("", "smriti-gitremote-marks-*")
	if err != nil {
		return "", "", fmt.Errorf("git remote: %w", err)
	}
	marks.Close()
	defer os.Remove(marks.Name())
	if _, err := p.cache.run(ctx, &f.buf, "fast-import", "--quiet", "--force", "--export-marks="+marks.Name()); err != nil {
		return "", "", fmt.Errorf("git fast-import: %w", err)
	}
	defer p.cache.run(context.WithoutCancel(ctx), nil, "update-ref", "-d", f.scratch)
	data, err := os.ReadFile(marks.Name())
	if err != nil {
		return "", "", fmt.Errorf("git remote: %w", err)
	}
	byMark := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m, sha, ok := strings.Cut(line, " "); ok {
			byMark[m] = sha
		}
	}
	resolve := func(c string) string {
		if strings.HasPrefix(c, ":") {
			return byMark[c]
		}
		return c
	}
	newHead, newLog := resolve(f.headMark), ""
	if f.logMark != "" {
		newLog = resolve(f.logMark)
	}
	if newHead == "" || (f.logMark != "" && newLog == "") {
		return "", "", smriti.Errorf(smriti.EINTERNAL, "git fast-import did not report the commits it wrote")
	}
	return newHead, newLog, nil
}
