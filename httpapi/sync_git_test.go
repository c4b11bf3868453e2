package httpapi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smriti"
	"smriti/internal/textutil"
	"smriti/wire"
)

// A git repository as a remote: two laptops (SQLite servers on 127.0.0.1)
// whose only link is a bare repository made by the test and reached with
// the real git binary. No Smriti server stands between them.

// gitRun runs git in dir and returns its trimmed output.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev",
		"GIT_COMMITTER_EMAIL=dev@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// projectRepo is a bare repository holding a project's main branch (one
// commit) and a tag, as a git host would; it returns the repository and
// its refs outside refs/smriti/.
func projectRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	bare := filepath.Join(dir, "project.git")
	gitRun(t, dir, "init", "--bare", "--quiet", "-b", "main", bare)
	work := filepath.Join(dir, "work")
	gitRun(t, dir, "init", "--quiet", "-b", "main", work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("# the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "README.md")
	gitRun(t, work, "commit", "--quiet", "-m", "the project's own commit")
	gitRun(t, work, "tag", "v1")
	gitRun(t, work, "push", "--quiet", bare, "main", "v1")
	return bare, projectRefs(t, bare)
}

// projectRefs lists the repository's refs other than Smriti's.
func projectRefs(t *testing.T, bare string) string {
	t.Helper()
	var keep []string
	for _, line := range strings.Split(gitRun(t, bare, "for-each-ref", "--format=%(objectname) %(refname)"), "\n") {
		if !strings.Contains(line, " refs/smriti/") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// gitHead is the checkpoint hash the repository's branch ref names.
func gitHead(t *testing.T, bare string, space smriti.ID, branch string) string {
	t.Helper()
	subject := gitRun(t, bare, "log", "-1", "--format=%s", "refs/smriti/"+space.String()+"/heads/"+branch)
	f := strings.Fields(subject)
	if len(f) != 4 || f[0] != "smriti" || f[1] != "checkpoint" {
		t.Fatalf("the branch ref's commit reads %q", subject)
	}
	return f[2]
}

// gitPair is two laptops and a project's bare repository: A made a space
// with one checkpoint holding decision, added the repository as origin
// and pushed; B cloned it from there.
func gitPair(t *testing.T, name, decision string) (string, *testEnv, *testEnv, *wire.Repo) {
	t.Helper()
	bare, _ := projectRepo(t)
	a, b := newEnv(t), newEnv(t)
	sp, err := a.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp(name)})
	if err != nil {
		t.Fatal(err)
	}
	commitState(t, a, sp.ID, "start", []string{decision}, nil)
	if _, err := a.c.AddRemote(bg, sp.ID, wire.RemoteRequest{Name: "origin", URL: bare}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{}); err != nil {
		t.Fatal(err)
	}
	id := sp.ID.String()
	if _, err := b.c.Clone(bg, wire.CloneRequest{URL: bare, SpaceID: &id}); err != nil {
		t.Fatal(err)
	}
	return bare, a, b, sp
}

// TestGitRemoteTwoClonesStory: laptop A pushes a space to a bare git
// repository, laptop B clones it from there; both make disjoint changes
// plus one change to the same item. A's push lands; B's is refused naming
// both heads and the pull to run; B's pull leaves exactly one conflict, on
// that item's id, as a proposal; B accepts and pushes; A fast-forwards.
// Both heads and the repository's ref agree, every item once with its id,
// and the project's own branch, tag and objects are untouched.
func TestGitRemoteTwoClonesStory(t *testing.T) {
	bare, before := projectRepo(t)
	a, b := newEnv(t), newEnv(t)
	sp, err := a.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("plans")})
	if err != nil {
		t.Fatal(err)
	}
	space := sp.ID
	commitState(t, a, space, "start", []string{"Use PostgreSQL", "Ship weekly", "Keep the API stable"}, nil)
	if _, err := a.c.AddRemote(bg, space, wire.RemoteRequest{Name: "origin", URL: bare}); err != nil {
		t.Fatal(err)
	}
	first, err := a.c.Push(bg, space, "origin", wire.PushRequest{})
	if err != nil || first.Outcome != "pushed" || first.OldHead != nil || first.Stored.Checkpoints != 1 {
		t.Fatalf("A's first push = %+v, %v; want pushed, 1 checkpoint, no old head", first, err)
	}
	if got := gitHead(t, bare, space, "main"); got != first.NewHead {
		t.Fatalf("the repository's main names %s, want %s", got, first.NewHead)
	}
	id := space.String()
	cl, err := b.c.Clone(bg, wire.CloneRequest{URL: bare, SpaceID: &id})
	if err != nil {
		t.Fatalf("clone from the git repository: %v", err)
	}
	if cl.Repo.ID != space || cl.Remote.Name != "origin" || cl.Remote.URL != bare || len(cl.Remote.Heads) != 1 || cl.Remote.Heads[0].CommitHash != first.NewHead {
		t.Fatalf("clone answered %+v", cl)
	}
	verifyHead(t, b, space)

	shared := itemID(t, a, space, "Ship weekly")
	if got := itemID(t, b, space, "Ship weekly"); got != shared {
		t.Fatalf("the copies disagree on the item id: %s vs %s", shared, got)
	}
	commitState(t, a, space, "laptop A", []string{"Use PostgreSQL", "Ship every Tuesday", "Keep the API stable", "Add a cache"},
		map[string]string{"Ship every Tuesday": shared})
	commitState(t, b, space, "laptop B", []string{"Use PostgreSQL", "Ship every Friday", "Keep the API stable", "Write the runbook"},
		map[string]string{"Ship every Friday": shared})

	pa, err := a.c.Push(bg, space, "origin", wire.PushRequest{})
	if err != nil || pa.Outcome != "pushed" || pa.OldHead == nil || *pa.OldHead != first.NewHead || pa.Stored.Checkpoints != 1 {
		t.Fatalf("A's push = %+v, %v; want pushed with 1 checkpoint on %s", pa, err, first.NewHead)
	}
	_, err = b.c.Push(bg, space, "origin", wire.PushRequest{})
	wantCode(t, err, smriti.ECONFLICT)
	wantMsg := "push refused: main on the remote is at " + textutil.ShortHash(pa.NewHead) + ", not " + textutil.ShortHash(first.NewHead) +
		" as this copy last saw it; run `smriti pull origin`, then push again"
	if msg := smriti.ErrorMessage(err); msg != wantMsg {
		t.Fatalf("refused push says %q;\nwant %q", msg, wantMsg)
	}
	if got := gitHead(t, bare, space, "main"); got != pa.NewHead {
		t.Fatalf("the refused push moved the repository's main to %s", got)
	}

	pull, err := b.c.Pull(bg, space, "origin", wire.PullRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if pull.Outcome != "merged_with_proposal" || len(pull.Conflicts) != 1 || pull.Conflicts[0].Key != shared || pull.Proposal == nil ||
		pull.Fetch == nil || pull.Fetch.Staged.Checkpoints != 1 {
		t.Fatalf("pull = outcome %q, conflicts %+v, proposal %v, fetch %+v; want one conflict on %s in a proposal after 1 fetched checkpoint",
			pull.Outcome, pull.Conflicts, pull.Proposal != nil, pull.Fetch, shared)
	}
	if live, _ := liveDecisions(t, b, space); live[shared] != "Ship every Friday" {
		t.Fatalf("the pull overwrote B's side: %q", live[shared])
	}
	if _, err := b.c.AcceptProposal(bg, space, pull.Proposal.ID, nil); err != nil {
		t.Fatal(err)
	}
	pb, err := b.c.Push(bg, space, "origin", wire.PushRequest{})
	if err != nil || pb.Outcome != "pushed" || pb.OldHead == nil || *pb.OldHead != pa.NewHead {
		t.Fatalf("B's second push = %+v, %v; want pushed on %s", pb, err, pa.NewHead)
	}
	pa2, err := a.c.Pull(bg, space, "origin", wire.PullRequest{})
	if err != nil || pa2.Outcome != "fast_forward" {
		t.Fatalf("A's pull = %+v, %v; want fast_forward", pa2, err)
	}
	if again, err := a.c.Push(bg, space, "origin", wire.PushRequest{}); err != nil || again.Outcome != "up_to_date" {
		t.Fatalf("A's push after the pull = %+v, %v; want up_to_date", again, err)
	}

	want := []string{"Add a cache", "Keep the API stable", "Ship every Tuesday", "Use PostgreSQL", "Write the runbook"}
	var heads []string
	for _, e := range []*testEnv{a, b} {
		live, head := liveDecisions(t, e, space)
		heads = append(heads, head.CommitHash)
		texts := mapValues(live)
		slices.Sort(texts)
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Fatalf("%s holds %v; want %v", e.url, texts, want)
		}
		if live[shared] != "Ship every Tuesday" {
			t.Fatalf("%s: the shared item lost its id: %v", e.url, live)
		}
		verifyHead(t, e, space)
	}
	if heads[0] != heads[1] || heads[0] != gitHead(t, bare, space, "main") {
		t.Fatalf("heads differ: A %s, B %s, repository %s", heads[0], heads[1], gitHead(t, bare, space, "main"))
	}
	if after := projectRefs(t, bare); after != before {
		t.Fatalf("the project's refs changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	gitRun(t, bare, "fsck", "--no-progress", "--strict")
}

// TestGitRemotePrivateNeverWritten: a private session's turn and the
// quote an item took from it appear in no object of the repository (every
// object, reachable or not, read with cat-file), while a shared session's
// turns travel to the other laptop with their order kept.
func TestGitRemotePrivateNeverWritten(t *testing.T) {
	const canary = "CANARY-GIT-7d21c9"
	bare, a, b, sp := gitPair(t, "secret", "Base")
	id := sp.ID.String()
	private, err := a.c.CreateSession(bg, &sp.ID, "mine", "mock", "mock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.SetSessionPrivate(bg, private.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Send(bg, sendReq(private.ID, "the key is "+canary), ""); err != nil {
		t.Fatal(err)
	}
	shared, err := a.c.CreateSession(bg, &sp.ID, "ours", "mock", "mock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Send(bg, sendReq(shared.ID, "plan the rollout"), ""); err != nil {
		t.Fatal(err)
	}
	quote := "the key is " + canary
	from, to := int64(0), int64(1)
	if _, err := a.c.CommitToSpace(bg, sp.ID, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: strp("mine"), Decisions: []string{"Base", "Rotate keys monthly"}},
		ItemFields: wire.ItemFields{Items: []wire.ItemIn{{ID: "d-beef01", Kind: "decision", Text: "Rotate keys monthly", Origin: &smriti.ItemOrigin{SessionID: &private.ID, FromSeq: &from, ToSeq: &to, Quote: &quote}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.Send(bg, sendReq(shared.ID, "and after the checkpoint"), ""); err != nil {
		t.Fatal(err)
	}
	push, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{})
	if err != nil || push.Stored.Checkpoints != 1 || push.Stored.Sessions != 1 || push.Stored.Turns != 4 {
		t.Fatalf("push = %+v, %v; want 1 checkpoint, 1 session, 4 turns", push, err)
	}
	all := gitRun(t, bare, "cat-file", "--batch-all-objects", "--batch")
	if !strings.Contains(all, "Rotate keys monthly") || !strings.Contains(all, "plan the rollout") {
		t.Fatal("the repository lacks what was pushed; the canary check would prove nothing")
	}
	if strings.Contains(strings.ToLower(all), strings.ToLower(canary)) {
		t.Fatal("the private canary is in an object of the git repository")
	}

	pull, err := b.c.Pull(bg, sp.ID, "origin", wire.PullRequest{})
	if err != nil || pull.Outcome != "fast_forward" {
		t.Fatalf("B's pull = %+v, %v", pull, err)
	}
	turns, err := b.c.Turns(bg, shared.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 4 || turns[0].Content != "plan the rollout" || turns[2].Content != "and after the checkpoint" {
		t.Fatalf("B holds the shared session's turns %+v", turns)
	}
	if _, err := b.c.Session(bg, private.ID); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("B's view of the private session: %v; want not found", err)
	}
	live, _ := liveDecisions(t, b, sp.ID)
	if live["d-beef01"] != "Rotate keys monthly" {
		t.Fatalf("B lacks the item: %v", live)
	}
	verifyHead(t, b, sp.ID)

	// A clone made now, from the repository alone, holds the same.
	c := newEnv(t)
	if _, err := c.c.Clone(bg, wire.CloneRequest{URL: bare, SpaceID: &id}); err != nil {
		t.Fatal(err)
	}
	if turns, err := c.c.Turns(bg, shared.ID); err != nil || len(turns) != 4 || turns[3].SequenceNumber != 3 {
		t.Fatalf("the fresh clone holds turns %+v, %v; want 4", turns, err)
	}
	if live, head := liveDecisions(t, c, sp.ID); live["d-beef01"] != "Rotate keys monthly" || head.CommitHash != push.NewHead {
		t.Fatalf("the fresh clone's main is %s holding %v; want %s", head.CommitHash, live, push.NewHead)
	}
	verifyHead(t, c, sp.ID)
}

// TestGitRemoteTamperedCheckpointIsRefused: someone with write access to
// the repository rewrites a checkpoint's record (one word of its message)
// and points the branch at the forged commit. The fetch refuses it naming
// the checkpoint and moves nothing; once the branch is restored a fetch
// completes.
func TestGitRemoteTamperedCheckpointIsRefused(t *testing.T) {
	bare, a, b, sp := gitPair(t, "forged", "Alpha")
	two := commitState(t, a, sp.ID, "two", []string{"Alpha", "Bravo"}, nil)
	if _, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{}); err != nil {
		t.Fatal(err)
	}

	ref := "refs/smriti/" + sp.ID.String() + "/heads/main"
	sound := gitRun(t, bare, "rev-parse", ref)
	record := gitRun(t, bare, "cat-file", "blob", sound+":checkpoint.json")
	forged := strings.Replace(record, `"message":"two"`, `"message":"tw0"`, 1)
	if forged == record {
		t.Fatalf("the record does not hold the message as expected:\n%s", record)
	}
	blobFile := filepath.Join(t.TempDir(), "forged.json")
	if err := os.WriteFile(blobFile, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	blob := gitRun(t, bare, "hash-object", "-w", blobFile)
	tree := gitRunIn(t, bare, "100644 blob "+blob+"\tcheckpoint.json\n", "mktree")
	subject := gitRun(t, bare, "log", "-1", "--format=%s", sound)
	commit := gitRun(t, bare, "commit-tree", tree, "-p", sound+"^", "-m", subject)
	gitRun(t, bare, "update-ref", ref, commit)

	_, err := b.c.Fetch(bg, sp.ID, "origin")
	wantCode(t, err, smriti.EUNPROCESSABLE)
	if msg := smriti.ErrorMessage(err); !strings.Contains(msg, "checkpoint "+two.ID.String()+" does not verify") {
		t.Fatalf("the forged fetch says %q; want it to name checkpoint %s", msg, two.ID)
	}
	if r, err := b.c.Remote(bg, sp.ID, "origin"); err != nil || len(r.Heads) != 1 || r.Heads[0].CommitHash == two.CommitHash {
		t.Fatalf("after the refused fetch B's origin is %+v, %v; want the head it had", r, err)
	}
	gitRun(t, bare, "update-ref", ref, sound)
	f, err := b.c.Fetch(bg, sp.ID, "origin")
	if err != nil || f.Staged.Checkpoints != 1 || f.Heads[0].CommitHash != two.CommitHash {
		t.Fatalf("the fetch from the restored repository = %+v, %v", f, err)
	}
}

// gitRunIn runs git in dir with stdin.
func gitRunIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitRemoteErrors: what goes wrong with a git remote is a 4xx or 502
// that says what to do, never a 500, and nothing is half-written.
func TestGitRemoteErrors(t *testing.T) {
	bare, a, _, sp := gitPair(t, "errs", "Alpha")
	empty := filepath.Join(t.TempDir(), "empty.git")
	gitRun(t, t.TempDir(), "init", "--bare", "--quiet", empty)
	missing := filepath.Join(t.TempDir(), "missing.git")
	for _, r := range []wire.RemoteRequest{{Name: "empty", URL: empty}, {Name: "gone", URL: missing}} {
		if _, err := a.c.AddRemote(bg, sp.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	tok := "secret-token"
	cases := []struct {
		name   string
		call   func() error
		code   string
		detail string
	}{
		{"TokenRefused", func() error {
			_, err := a.c.AddRemote(bg, sp.ID, wire.RemoteRequest{Name: "tok", URL: bare, Token: &tok})
			return err
		}, smriti.EUNPROCESSABLE, `remote URL "` + bare + `" is a git repository, which takes no token: git's own credentials (ssh keys, credential helpers) reach it`},
		{"RelativePathRefused", func() error {
			_, err := a.c.AddRemote(bg, sp.ID, wire.RemoteRequest{Name: "rel", URL: "notes.git"})
			return err
		}, smriti.EUNPROCESSABLE, `remote URL "notes.git" must be an http or https URL of a Smriti server`},
		{"MissingRepositoryIsUpstream", func() error { _, err := a.c.Fetch(bg, sp.ID, "gone"); return err },
			smriti.EUPSTREAM, "remote gone: could not fetch from the git repository " + missing + ": git fetch: "},
		{"EmptyRepositoryHoldsNoCopy", func() error { _, err := a.c.Fetch(bg, sp.ID, "empty"); return err },
			smriti.ENOTFOUND, "remote empty: the git repository " + empty + " holds no copy of space " + sp.ID.String() + "; push to it first"},
		{"CloneOfNoCopy", func() error {
			id := smriti.NewID().String()
			_, err := a.c.Clone(bg, wire.CloneRequest{URL: empty, SpaceID: &id, Name: "x"})
			return err
		}, smriti.ENOTFOUND, "holds no copy of space"},
		{"ProposeRefused", func() error {
			commitState(t, a, sp.ID, "more", []string{"Alpha", "Beta"}, nil)
			_, err := a.c.Push(bg, sp.ID, "origin", wire.PushRequest{Propose: true})
			return err
		}, smriti.EUNPROCESSABLE, "remote origin: a git repository cannot hold proposals; push without --propose, or push --propose to a Smriti server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			wantCode(t, err, c.code)
			if msg := smriti.ErrorMessage(err); !strings.Contains(msg, c.detail) {
				t.Fatalf("detail = %q; want it to hold %q", msg, c.detail)
			}
		})
	}
	if refs := gitRun(t, empty, "for-each-ref"); refs != "" {
		t.Fatalf("the empty repository gained refs: %s", refs)
	}
}

// TestGitRemoteRefusedWithoutGit: a server built without a way to reach
// git repositories (a server people sign in to, unless its operator allows
// them) refuses one at remote add and at clone, saying why.
func TestGitRemoteRefusedWithoutGit(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.noGit = true })
	sp, err := e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: strp("nogit")})
	if err != nil {
		t.Fatal(err)
	}
	const why = "this server does not reach git repositories: a server people sign in to reaches them only when its operator sets SMRITI_GIT_REMOTES=on; use a Smriti server's URL instead"
	_, err = e.c.AddRemote(bg, sp.ID, wire.RemoteRequest{Name: "origin", URL: "/srv/git/notes.git"})
	if wantCode(t, err, smriti.EUNAVAILABLE); smriti.ErrorMessage(err) != why {
		t.Fatalf("remote add says %q", smriti.ErrorMessage(err))
	}
	id := sp.ID.String()
	_, err = e.c.Clone(bg, wire.CloneRequest{URL: "git@example.com:me/notes.git", SpaceID: &id, Name: "other"})
	if wantCode(t, err, smriti.EUNAVAILABLE); smriti.ErrorMessage(err) != why {
		t.Fatalf("clone says %q", smriti.ErrorMessage(err))
	}
	if rs, err := e.c.Remotes(bg, sp.ID); err != nil || len(rs) != 0 {
		t.Fatalf("remotes = %+v, %v; want none", rs, err)
	}
}
