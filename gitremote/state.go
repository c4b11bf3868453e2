package gitremote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"smriti"
	"smriti/records"
	"smriti/remote"
)

// Peer is a git repository holding copies of spaces, reached through a
// server's cache repository. It implements remote.Peer.
type Peer struct {
	cache *Cache
	// url is the remote's URL as the user gave it; loc what git is given.
	url, loc string
}

var _ remote.Peer = (*Peer)(nil)

// The commit subjects that name what a commit is.
const (
	checkpointSubject = "smriti checkpoint "
	logSubject        = "smriti log "
	checkpointFile    = "checkpoint.json"
	logFile           = "records.jsonl"
	spaceFile         = "space.json"
	// checkpointAt is the log's marker for where a checkpoint fell among
	// the sessions and turns of a push.
	checkpointAt = "checkpoint_at"
)

// logLine is a line of a log commit's records: a session or turn record,
// or a checkpointAt marker naming a checkpoint.
type logLine struct {
	Type string    `json:"type"`
	ID   smriti.ID `json:"id"`
}

// head is a branch head in the repository.
type head struct {
	branch, commit, hash string
	id                   smriti.ID
}

// state is what the cache mirrors of one space in the remote repository.
type state struct {
	ns     string
	heads  []head
	logTip string
	logSeq int64
}

// refresh mirrors the remote's refs/smriti/<space>/ into the cache.
func (p *Peer) refresh(ctx context.Context, space smriti.ID) error {
	if err := p.cache.init(ctx); err != nil {
		return err
	}
	spec := "+" + remoteNamespace(space) + "/*:" + namespace(p.url, space) + "/*"
	if _, err := p.cache.run(ctx, nil, "fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", "--", p.loc, spec); err != nil {
		return p.unreachable("fetch from", err)
	}
	return nil
}

// copyOf mirrors the remote and reads the space's copy there (ENOTFOUND
// when the repository holds none).
func (p *Peer) copyOf(ctx context.Context, space smriti.ID) (*state, error) {
	if err := p.refresh(ctx, space); err != nil {
		return nil, err
	}
	st, err := p.read(ctx, space)
	if err != nil {
		return nil, err
	}
	if st.logTip == "" {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "the git repository %s holds no copy of space %s; push to it first", p.url, space)
	}
	return st, nil
}

// unreachable says a git exchange with the remote failed, with git's own
// words.
func (p *Peer) unreachable(what string, err error) error {
	if _, ok := err.(*smriti.Error); ok {
		return err
	}
	return smriti.Errorf(smriti.EUPSTREAM, "could not %s the git repository %s: %v; check the path or URL and that `git ls-remote %s` works from this server", what, p.url, err, p.loc)
}

// read lists the mirrored heads and log tip of a space.
func (p *Peer) read(ctx context.Context, space smriti.ID) (*state, error) {
	st := &state{ns: namespace(p.url, space)}
	out, err := p.cache.run(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname) %(contents:subject)", st.ns+"/")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			continue
		}
		commit, ref, subject := f[0], strings.TrimPrefix(f[1], st.ns+"/"), f[2]
		switch {
		case ref == "log":
			seq, err := strconv.ParseInt(strings.TrimPrefix(subject, logSubject), 10, 64)
			if !strings.HasPrefix(subject, logSubject) || err != nil {
				return nil, p.corrupt("its log ref does not name a log commit")
			}
			st.logTip, st.logSeq = commit, seq
		case strings.HasPrefix(ref, "heads/"):
			branch, ok := branchName(strings.TrimPrefix(ref, "heads/"))
			hash, id, okc := parseCheckpointSubject(subject)
			if !ok || !okc {
				return nil, p.corrupt(fmt.Sprintf("ref %s does not name a checkpoint commit", ref))
			}
			st.heads = append(st.heads, head{branch: branch, commit: commit, hash: hash, id: id})
		}
	}
	return st, nil
}

func (p *Peer) corrupt(what string) error {
	return smriti.Errorf(smriti.EUPSTREAM, "the git repository %s is not as Smriti wrote it: %s", p.url, what)
}

// parseCheckpointSubject reads "smriti checkpoint <hash> <id>".
func parseCheckpointSubject(s string) (string, smriti.ID, bool) {
	f := strings.Fields(strings.TrimPrefix(s, checkpointSubject))
	if !strings.HasPrefix(s, checkpointSubject) || len(f) != 2 {
		return "", smriti.NilID, false
	}
	id, err := smriti.ParseID("checkpoint_id", f[1])
	return f[0], id, err == nil
}

// logEntry is one log commit.
type logEntry struct {
	commit string
	seq    int64
}

// logSince lists the log commits after seq since, oldest first.
func (p *Peer) logSince(ctx context.Context, st *state, since int64) ([]logEntry, error) {
	if st.logTip == "" || st.logSeq <= since {
		return nil, nil
	}
	args := []string{"log", "--first-parent", "--format=%H %s"}
	if since > 0 {
		args = append(args, "-n", strconv.FormatInt(st.logSeq-since, 10))
	}
	out, err := p.cache.run(ctx, nil, append(args, st.logTip, "--")...)
	if err != nil {
		return nil, err
	}
	var list []logEntry
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		commit, subject, _ := strings.Cut(line, " ")
		seq, err := strconv.ParseInt(strings.TrimPrefix(subject, logSubject), 10, 64)
		if err != nil || !strings.HasPrefix(subject, logSubject) {
			return nil, p.corrupt(fmt.Sprintf("commit %s on the log is not a log commit", commit))
		}
		if seq > since {
			list = append(list, logEntry{commit: commit, seq: seq})
		}
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, nil
}

// blobs reads files of commits through one `git cat-file --batch`.
type blobs struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (c *Cache) openBlobs(ctx context.Context) (*blobs, error) {
	bin := c.Binary
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, "--git-dir="+c.Dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, smriti.Errorf(smriti.EUPSTREAM, "run git cat-file: %v", err)
	}
	return &blobs{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// get returns the content of name (commit:path); ok false when missing.
func (b *blobs) get(name string) ([]byte, bool, error) {
	if _, err := io.WriteString(b.in, name+"\n"); err != nil {
		return nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	hdr, err := b.out.ReadString('\n')
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(hdr)
	if len(f) == 2 && f[1] == "missing" {
		return nil, false, nil
	}
	if len(f) != 3 {
		return nil, false, fmt.Errorf("git cat-file answered %q", strings.TrimSpace(hdr))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file answered %q", strings.TrimSpace(hdr))
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	return data[:n], true, nil
}

func (b *blobs) close() {
	b.in.Close()
	_ = b.cmd.Wait()
}

// checkpoint reads a checkpoint commit's record.
func (p *Peer) checkpoint(b *blobs, commit string) (*records.BundleRecord, error) {
	data, ok, err := b.get(commit + ":" + checkpointFile)
	if err != nil {
		return nil, err
	}
	var rec records.BundleRecord
	if !ok || json.Unmarshal(data, &rec) != nil || rec.Type != records.RecordCheckpoint || rec.Checkpoint == nil {
		return nil, p.corrupt(fmt.Sprintf("commit %s holds no checkpoint record", commit))
	}
	return &rec, nil
}

// space reads the space record of the newest log commit.
func (p *Peer) space(b *blobs, st *state) (*records.BundleSpace, error) {
	data, ok, err := b.get(st.logTip + ":" + spaceFile)
	if err != nil {
		return nil, err
	}
	var sp records.BundleSpace
	if !ok || json.Unmarshal(data, &sp) != nil {
		return nil, p.corrupt("its newest log commit holds no space record")
	}
	return &sp, nil
}

// logLines reads a log commit's lines, each as its marker and raw record.
func (p *Peer) logLines(b *blobs, commit string, each func(l logLine, raw []byte) error) error {
	data, ok, err := b.get(commit + ":" + logFile)
	if err != nil {
		return err
	}
	if !ok {
		return p.corrupt(fmt.Sprintf("log commit %s holds no records", commit))
	}
	for _, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l logLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return p.corrupt(fmt.Sprintf("log commit %s holds a line that is not JSON", commit))
		}
		if err := each(l, raw); err != nil {
			return err
		}
	}
	return nil
}
