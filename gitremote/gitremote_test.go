package gitremote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/gitremote"
	"smriti/internal/textutil"
	"smriti/portability"
	"smriti/records"
	"smriti/remote"
)

var ctx = context.Background()

func git(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func bareRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	git(t, "init", "--bare", "--quiet", dir)
	return dir
}

// cp is a checkpoint record of space with its true hash (its parent made by cp
// before it); the git peer stores records as they come and the receiving
// server verifies them, as the bundle reader does.
func cp(space, id smriti.ID, parent *smriti.ID, branch, msg string) records.BundleRecord {
	b := &records.BundleCheckpoint{ID: id, ParentID: parent, BranchName: branch, AuthorType: smriti.AuthorUser, Message: msg,
		CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	ph := ""
	if parent != nil {
		ph = hashes[*parent]
	}
	b.CommitHash = b.CheckpointOf(space).ComputeHash(ph, "")
	hashes[id] = b.CommitHash
	return records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: b}
}

// hashes remembers the hash of each checkpoint cp made.
var hashes = map[smriti.ID]string{}

func hashOf(r records.BundleRecord) string { return r.Checkpoint.CommitHash }

func session(id smriti.ID) records.BundleRecord {
	return records.BundleRecord{Type: records.RecordSession, Session: &records.BundleSession{ID: id, Title: "s", BranchName: "main", BranchDisposition: "active"}}
}

func turn(id, sess smriti.ID, seq int64, text string) records.BundleRecord {
	return records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{ID: id, SessionID: sess, Seq: seq, Role: "user", Content: text}}
}

// stream is a sync stream of space holding recs.
func stream(t testing.TB, space smriti.ID, recs ...records.BundleRecord) *bytes.Reader {
	t.Helper()
	var buf bytes.Buffer
	w, err := portability.NewSyncWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]records.BundleRecord{{Type: records.RecordSpace, Space: &records.BundleSpace{ID: space, Name: "plans"}}}, recs...)
	all = append(all, records.BundleRecord{Type: records.RecordSyncEnd, SyncEnd: &records.SyncEnd{}})
	for _, r := range all {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(buf.Bytes())
}

// read is what a fetch answers: each record as "type:id", and the end.
func read(t *testing.T, p remote.Peer, space smriti.ID, want remote.Want) ([]string, *records.SyncEnd) {
	t.Helper()
	rc, err := p.Fetch(ctx, space, want)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rd, err := portability.NewSyncReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return got, rd.End()
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Checkpoint != nil:
			got = append(got, "checkpoint:"+rec.Checkpoint.Message)
		case rec.Session != nil:
			got = append(got, "session")
		case rec.Turn != nil:
			got = append(got, "turn:"+rec.Turn.Content)
		}
	}
}

func strp(s string) *string { return &s }

// TestFetchReplaysPushesInOrder: what pushes stored comes back in the
// order it was pushed — turns on their side of each checkpoint — minus
// what the asker has (haves, and the log position since).
func TestFetchReplaysPushesInOrder(t *testing.T) {
	repo := bareRepo(t)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	p := gitremote.New(cacheDir).Dial(repo, "")
	space, s := smriti.NewID(), smriti.NewID()
	c1id, c2id := smriti.NewID(), smriti.NewID()
	c1, c2 := cp(space, c1id, nil, "main", "one"), cp(space, c2id, &c1id, "main", "two")
	got, err := p.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c1)}, stream(t, space, session(s), turn(smriti.NewID(), s, 0, "before"), c1, turn(smriti.NewID(), s, 1, "after")))
	if err != nil || got.Checkpoints != 1 || got.Sessions != 1 || got.Turns != 2 {
		t.Fatalf("first push = %+v, %v", got, err)
	}
	if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c2)}, stream(t, space, c2, turn(smriti.NewID(), s, 2, "later"))); err != nil {
		t.Fatal(err)
	}
	recs, end := read(t, p, space, remote.Want{Since: -1})
	if want := "session turn:before checkpoint:one turn:after checkpoint:two turn:later"; strings.Join(recs, " ") != want {
		t.Fatalf("fetch answered %v; want %s", recs, want)
	}
	if end.Cursor != 2 || len(end.Heads) != 1 || end.Heads[0].CommitHash != hashOf(c2) || end.Heads[0].CheckpointID != c2id.String() {
		t.Fatalf("end = %+v", end)
	}
	recs, _ = read(t, p, space, remote.Want{Haves: []string{hashOf(c1)}, Since: 1})
	if want := "checkpoint:two turn:later"; strings.Join(recs, " ") != want {
		t.Fatalf("fetch after the first push answered %v; want %s", recs, want)
	}
	// The cache's index of checkpoints is only a cache: one garbled is
	// read again from git.
	files, _ := filepath.Glob(filepath.Join(cacheDir, "smriti-index", "*"))
	if len(files) != 1 {
		t.Fatalf("index files = %v; want one", files)
	}
	if err := os.WriteFile(files[0], []byte("tips deadbeef\ngarbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, _ = read(t, p, space, remote.Want{Haves: []string{hashOf(c1)}, Since: 1})
	if want := "checkpoint:two turn:later"; strings.Join(recs, " ") != want {
		t.Fatalf("fetch with a garbled index answered %v; want %s", recs, want)
	}
	recs, _ = read(t, p, space, remote.Want{Haves: []string{hashOf(c2)}, Since: 2})
	if len(recs) != 0 {
		t.Fatalf("a fetch of nothing new answered %v", recs)
	}
	heads, cursor, err := p.Refs(ctx, space)
	if err != nil || cursor != 2 || len(heads) != 1 || heads[0].Branch != "main" || heads[0].Hash != hashOf(c2) {
		t.Fatalf("refs = %+v, %d, %v", heads, cursor, err)
	}
	// The checkpoint commits are a git history: two's parent is one's.
	if parent := git(t, "--git-dir="+repo, "log", "-1", "--format=%s", "refs/smriti/"+space.String()+"/heads/main^"); parent != "smriti checkpoint "+hashOf(c1)+" "+c1id.String() {
		t.Fatalf("main^ is %q", parent)
	}
}

// racingGit is a git that, the first time it is asked to push, first runs
// race (another copy's push landing in between), then pushes.
func racingGit(t *testing.T, race string) string {
	t.Helper()
	dir := t.TempDir()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "raced")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$2\" = push ] && [ ! -e %q ]; then touch %q; %s || exit 99; fi\nexec %q \"$@\"\n", mark, mark, race, real)
	bin := filepath.Join(dir, "git")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestPushLosesTheRaceOnTheBranch: another copy moves the branch between
// this push's read and its git push; git's lease refuses the push, which
// answers ECONFLICT naming the head that won, and the ref keeps it.
func TestPushLosesTheRaceOnTheBranch(t *testing.T) {
	repo := bareRepo(t)
	space := smriti.NewID()
	c1id, c2id, c3id := smriti.NewID(), smriti.NewID(), smriti.NewID()
	c1, c2, c3 := cp(space, c1id, nil, "main", "one"), cp(space, c2id, &c1id, "main", "theirs"), cp(space, c3id, &c1id, "main", "mine")
	other := gitremote.New(filepath.Join(t.TempDir(), "other")).Dial(repo, "")
	if _, err := other.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c1)}, stream(t, space, c1)); err != nil {
		t.Fatal(err)
	}
	// Their checkpoint is in the repository on a side branch; the race
	// points main at it.
	if _, err := other.Push(ctx, space, remote.Push{Branch: "side", Head: hashOf(c2)}, stream(t, space, c2)); err != nil {
		t.Fatal(err)
	}
	ns := "refs/smriti/" + space.String()
	theirs := git(t, "--git-dir="+repo, "rev-parse", ns+"/heads/side")
	cache := &gitremote.Cache{Dir: filepath.Join(t.TempDir(), "mine"), Binary: racingGit(t, fmt.Sprintf("git --git-dir=%q update-ref %s/heads/main %s", repo, ns, theirs))}
	mine := cache.Dial(repo, "")
	_, err := mine.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c3)}, stream(t, space, c3))
	var e *smriti.Error
	if !errors.As(err, &e) || e.Code != smriti.ECONFLICT {
		t.Fatalf("push = %v; want ECONFLICT", err)
	}
	if m, ok := e.Data.(map[string]any); !ok || m["remote_head"] != hashOf(c2) {
		t.Fatalf("the conflict's data = %#v; want remote_head %s", e.Data, hashOf(c2))
	}
	if got := git(t, "--git-dir="+repo, "rev-parse", ns+"/heads/main"); got != theirs {
		t.Fatalf("main is %s after the refused push; want theirs %s", got, theirs)
	}
}

// TestPushRetriesWhenOnlyTheLogMoved: another copy pushes another branch
// between this push's read and its git push; the log's lease refuses the
// first attempt, the push is made again on the new log, and both pushes'
// records are there.
func TestPushRetriesWhenOnlyTheLogMoved(t *testing.T) {
	repo := bareRepo(t)
	space, s1, s2 := smriti.NewID(), smriti.NewID(), smriti.NewID()
	c1id, c2id, c3id := smriti.NewID(), smriti.NewID(), smriti.NewID()
	c1, c2, c3 := cp(space, c1id, nil, "main", "one"), cp(space, c2id, &c1id, "side", "theirs"), cp(space, c3id, &c1id, "main", "mine")
	other := gitremote.New(filepath.Join(t.TempDir(), "other")).Dial(repo, "")
	if _, err := other.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c1)}, stream(t, space, c1)); err != nil {
		t.Fatal(err)
	}
	ns := "refs/smriti/" + space.String()
	before := git(t, "--git-dir="+repo, "rev-parse", ns+"/log")
	if _, err := other.Push(ctx, space, remote.Push{Branch: "side", Head: hashOf(c2)}, stream(t, space, c2, session(s2), turn(smriti.NewID(), s2, 0, "theirs"))); err != nil {
		t.Fatal(err)
	}
	// Undo their log move for now; the race makes it land mid-push.
	theirLog := git(t, "--git-dir="+repo, "rev-parse", ns+"/log")
	git(t, "--git-dir="+repo, "update-ref", ns+"/log", before)
	cache := &gitremote.Cache{Dir: filepath.Join(t.TempDir(), "mine"), Binary: racingGit(t, fmt.Sprintf("git --git-dir=%q update-ref %s/log %s", repo, ns, theirLog))}
	mine := cache.Dial(repo, "")
	got, err := mine.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c3)}, stream(t, space, c3, session(s1), turn(smriti.NewID(), s1, 0, "mine")))
	if err != nil || got.Checkpoints != 1 || got.Turns != 1 {
		t.Fatalf("push = %+v, %v; want it made again and stored", got, err)
	}
	if parent := git(t, "--git-dir="+repo, "rev-parse", ns+"/log^"); parent != theirLog {
		t.Fatalf("the new log commit's parent is %s; want their log %s", parent, theirLog)
	}
	recs, end := read(t, other, space, remote.Want{Since: -1})
	if want := "checkpoint:one checkpoint:theirs session turn:theirs checkpoint:mine session turn:mine"; strings.Join(recs, " ") != want {
		t.Fatalf("fetch answered %v; want %s", recs, want)
	}
	if end.Cursor != 3 {
		t.Fatalf("cursor = %d; want 3 pushes", end.Cursor)
	}
}

// TestPushRefusals: a stale expectation is ECONFLICT before anything is
// written, and so is a head that does not descend from the branch's; a
// head the records lack, or a parent neither side holds, is refused; the
// repository does not change; a push of the head already there stores
// nothing.
func TestPushRefusals(t *testing.T) {
	repo := bareRepo(t)
	p := gitremote.New(filepath.Join(t.TempDir(), "cache")).Dial(repo, "")
	space := smriti.NewID()
	c1id, c2id := smriti.NewID(), smriti.NewID()
	c1, c2 := cp(space, c1id, nil, "main", "one"), cp(space, c2id, &c1id, "main", "two")
	orphan := cp(space, smriti.NewID(), &c2id, "main", "orphan")
	if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c1)}, stream(t, space, c1)); err != nil {
		t.Fatal(err)
	}
	refs := git(t, "--git-dir="+repo, "for-each-ref")
	_, err := p.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c2)}, stream(t, space, c2))
	if smriti.ErrorCode(err) != smriti.ECONFLICT || !strings.Contains(err.Error(), "main on the remote is at "+textutil.ShortHash(hashOf(c1))+", not none") {
		t.Fatalf("a push expecting no branch = %v", err)
	}
	_, err = p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c2)}, stream(t, space, orphan))
	if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), "names parent "+c2id.String()+", which neither the git repository nor this push holds") {
		t.Fatalf("a push with a missing parent = %v", err)
	}
	_, err = p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c2)}, stream(t, space))
	if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), "do not hold the head "+textutil.ShortHash(hashOf(c2))) {
		t.Fatalf("a push without its head = %v", err)
	}
	unrelated := cp(space, smriti.NewID(), nil, "main", "unrelated")
	_, err = p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(unrelated)}, stream(t, space, unrelated))
	if smriti.ErrorCode(err) != smriti.ECONFLICT {
		t.Fatalf("a push whose head does not descend from the branch's = %v; want ECONFLICT", err)
	}
	if got, err := p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c1)}, stream(t, space)); err != nil || got.Checkpoints != 0 {
		t.Fatalf("a push of the head already there = %+v, %v", got, err)
	}
	if after := git(t, "--git-dir="+repo, "for-each-ref"); after != refs {
		t.Fatalf("refused pushes changed the refs:\n%s\nwas\n%s", after, refs)
	}
	if _, err := p.Propose(ctx, space, nil, smriti.ProposalDraft{}); smriti.ErrorCode(err) != smriti.EUNPROCESSABLE {
		t.Fatalf("propose = %v", err)
	}
}

// TestBranchNamesBecomeRefs: a branch name git would refuse in a ref is
// stored encoded and read back as it was.
func TestBranchNamesBecomeRefs(t *testing.T) {
	repo := bareRepo(t)
	p := gitremote.New(filepath.Join(t.TempDir(), "cache")).Dial(repo, "")
	space := smriti.NewID()
	for i, b := range []string{"main", "feature/x", "..odd name~^:?*[\\.lock", "fork-ÿ"} {
		c := cp(space, smriti.NewID(), nil, b, fmt.Sprint("c", i))
		if _, err := p.Push(ctx, space, remote.Push{Branch: b, Head: hashOf(c)}, stream(t, space, c)); err != nil {
			t.Fatalf("push to %q: %v", b, err)
		}
	}
	heads, _, err := p.Refs(ctx, space)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range heads {
		got = append(got, h.Branch)
	}
	if strings.Join(got, "|") != strings.Join([]string{"..odd name~^:?*[\\.lock", "feature/x", "fork-ÿ", "main"}, "|") {
		t.Fatalf("branches read back as %q", got)
	}
}

// TestUnreachableRepositoryIsAnUpstreamError: a path that is no git
// repository answers EUPSTREAM with git's own words and what to check.
func TestUnreachableRepositoryIsAnUpstreamError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere.git")
	p := gitremote.New(filepath.Join(t.TempDir(), "cache")).Dial(missing, "")
	_, _, err := p.Refs(ctx, smriti.NewID())
	if smriti.ErrorCode(err) != smriti.EUPSTREAM || !strings.Contains(err.Error(), "does not appear to be a git repository") ||
		!strings.Contains(err.Error(), "`git ls-remote "+missing+"` works") {
		t.Fatalf("refs = %v", err)
	}
	_, err = gitremote.New(filepath.Join(t.TempDir(), "cache")).Dial(bareRepo(t), "").Fetch(ctx, smriti.NewID(), remote.Want{Since: -1})
	if smriti.ErrorCode(err) != smriti.ENOTFOUND || !strings.Contains(err.Error(), "push to it first") {
		t.Fatalf("fetch of a space the repository lacks = %v", err)
	}
}

// TestExportIsABundleAClonerCanRead: two copies each pushed a turn at the
// same place of one session (and one re-pushed a turn it had pulled); the
// bundle keeps the first pushed at each place, numbers checkpoints and
// turns in push order, and passes the bundle reader's checks.
func TestExportIsABundleAClonerCanRead(t *testing.T) {
	repo := bareRepo(t)
	p := gitremote.New(filepath.Join(t.TempDir(), "cache")).Dial(repo, "")
	space, s := smriti.NewID(), smriti.NewID()
	c1id, c2id := smriti.NewID(), smriti.NewID()
	c1, c2 := cp(space, c1id, nil, "main", "one"), cp(space, c2id, &c1id, "main", "two")
	t0 := turn(smriti.NewID(), s, 0, "first")
	if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Head: hashOf(c1)}, stream(t, space, session(s), t0, c1, turn(smriti.NewID(), s, 1, "A's second"))); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Push(ctx, space, remote.Push{Branch: "main", Expect: strp(hashOf(c1)), Head: hashOf(c2)},
		stream(t, space, session(s), t0, turn(smriti.NewID(), s, 1, "B's second"), c2, turn(smriti.NewID(), s, 2, "third"))); err != nil {
		t.Fatal(err)
	}
	rc, err := p.Export(ctx, space)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	br, err := portability.NewBundleReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the bundle does not read: %v", err)
		}
		switch {
		case rec.Checkpoint != nil:
			got = append(got, fmt.Sprintf("%s@%d", rec.Checkpoint.Message, *rec.Checkpoint.LogOrder))
		case rec.Turn != nil:
			got = append(got, fmt.Sprintf("%s@%d", rec.Turn.Content, *rec.Turn.LogOrder))
		case rec.Session != nil:
			got = append(got, "session")
		case rec.End != nil:
			got = append(got, fmt.Sprintf("end %d/%d/%d", rec.End.Checkpoints, rec.End.Sessions, rec.End.Turns))
		}
	}
	if want := "one@1 two@3 session first@0 A's second@2 third@4 end 2/1/3"; strings.Join(got, " ") != want {
		t.Fatalf("bundle = %s\nwant    %s", strings.Join(got, " "), want)
	}
}
