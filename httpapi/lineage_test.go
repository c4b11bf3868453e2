package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"smriti"
	"smriti/store/storetest"
	"smriti/wire"
)

// onBothEngines runs fn on SQLite and, when SMRITI_TEST_POSTGRES_URL is
// set, on PostgreSQL.
func onBothEngines(t *testing.T, fn func(t *testing.T, env *testEnv)) {
	t.Run("SQLite", func(t *testing.T) { fn(t, newEnv(t)) })
	t.Run("Postgres", func(t *testing.T) { fn(t, newEnv(t, withPostgres())) })
}

// lineageSpace is a space with one main session.
type lineageSpace struct {
	env   *testEnv
	space smriti.ID
	main  smriti.ID
}

var lineageSpaces atomic.Int64

func newLineageSpace(t *testing.T, env *testEnv) *lineageSpace {
	t.Helper()
	// Space names are unique per owner: each lineage space gets its own.
	sp := storetest.Get(env.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new(fmt.Sprintf("Australia Trip %d", lineageSpaces.Add(1))), Description: new("")})).Must(t)
	se := storetest.Get(env.c.CreateSession(bg, &sp.ID, "main", "mock", "mock-1")).Must(t)
	return &lineageSpace{env: env, space: sp.ID, main: se.ID}
}

func (l *lineageSpace) commit(t *testing.T, session smriti.ID, f wire.ContentFields) *wire.Commit {
	t.Helper()
	sp, se := l.space.String(), session.String()
	return storetest.Get(l.env.c.Commit(bg, wire.CommitRequest{RepoID: &sp, SessionID: &se, ContentFields: f})).Must(t)
}

func (l *lineageSpace) note(t *testing.T, session smriti.ID, msg string, decisions ...string) *wire.Commit {
	t.Helper()
	return l.commit(t, session, wire.ContentFields{Message: &msg, Summary: "summary of " + msg, Decisions: decisions})
}

func (l *lineageSpace) fork(t *testing.T, from smriti.ID, branch string) *wire.ForkResponse {
	t.Helper()
	sp, cp := l.space.String(), from.String()
	return storetest.Get(l.env.c.Fork(bg, wire.ForkRequest{SpaceID: &sp, CheckpointID: &cp, BranchName: branch})).Must(t)
}

func messages(cs []wire.Commit) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Message)
	}
	return out
}

func TestForkBranchesAndReachable(t *testing.T) {
	onBothEngines(t, func(t *testing.T, env *testEnv) {
		l := newLineageSpace(t, env)
		a := l.note(t, l.main, "A")
		b := l.note(t, l.main, "B")
		f := l.fork(t, b.ID, "  plan-b  ")
		if f.BranchName != "plan-b" || f.ForkedFromCheckpointID != b.ID || f.HistoryBaseSeq != -1 {
			t.Fatalf("fork = %+v", f)
		}
		if f.Session.ActiveProvider == "" || f.Session.BranchDisposition != "active" || f.Session.ID != f.SessionID {
			t.Fatalf("fork session = %+v", f.Session)
		}
		f1 := l.note(t, f.SessionID, "F1")
		c := l.note(t, l.main, "C")
		g := l.fork(t, b.ID, "")
		l.note(t, g.SessionID, "G1")
		f2 := l.note(t, f.SessionID, "F2")

		t.Run("ForkFirstCheckpointParentsToSourceLaterOnesChain", func(t *testing.T) {
			if f1.ParentCommitID == nil || *f1.ParentCommitID != b.ID || f1.BranchName != "plan-b" {
				t.Fatalf("F1 parent = %v on %s", f1.ParentCommitID, f1.BranchName)
			}
			if f2.ParentCommitID == nil || *f2.ParentCommitID != f1.ID {
				t.Fatalf("F2 parent = %v", f2.ParentCommitID)
			}
			if c.ParentCommitID == nil || *c.ParentCommitID != b.ID {
				t.Fatalf("C parent = %v", c.ParentCommitID)
			}
		})
		t.Run("ForkCheckpointsNeverOnMain", func(t *testing.T) {
			main := storetest.Get(env.c.Checkpoints(bg, l.space, "main")).Must(t)
			if got := messages(main); !slices.Equal(got, []string{"C", "B", "A"}) {
				t.Fatalf("main = %v", got)
			}
		})
		t.Run("ForkReachesItsBranchAndSourceNotLaterMainNorSiblings", func(t *testing.T) {
			got := storetest.Get(env.c.Reachable(bg, f.SessionID)).Must(t)
			if m := messages(got); !slices.Equal(m, []string{"F2", "F1", "B", "A"}) {
				t.Fatalf("reachable = %v", m)
			}
			if got[3].ID != a.ID || got[0].Metadata["session_id"] != f.SessionID.String() {
				t.Fatalf("reachable commits are not full commits: %+v", got[0])
			}
		})
		t.Run("MainReachesMainOnly", func(t *testing.T) {
			got := storetest.Get(env.c.Reachable(bg, l.main)).Must(t)
			if m := messages(got); !slices.Equal(m, []string{"C", "B", "A"}) {
				t.Fatalf("reachable = %v", m)
			}
		})
		t.Run("UnattachedSessionReachesNothing", func(t *testing.T) {
			loose := storetest.Get(env.c.CreateSession(bg, nil, "loose", "mock", "m")).Must(t)
			code, body := env.raw(t, "GET", "/api/v5/lineage/sessions/"+loose.ID.String()+"/checkpoints", "")
			if code != 200 || strings.TrimSpace(body) != "[]" {
				t.Fatalf("unattached = %d %s", code, body)
			}
		})
	})
}

func TestConcurrentForksGetDistinctNames(t *testing.T) {
	onBothEngines(t, func(t *testing.T, env *testEnv) {
		l := newLineageSpace(t, env)
		a := l.note(t, l.main, "A")
		const n = 4
		names := make([]string, n)
		var wg sync.WaitGroup
		for i := range names {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				sp, cp := l.space.String(), a.ID.String()
				f, err := env.c.Fork(bg, wire.ForkRequest{SpaceID: &sp, CheckpointID: &cp})
				if err != nil {
					t.Error(err)
					return
				}
				names[i] = f.BranchName
			}(i)
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Fatalf("two forks got branch %q: %v", n, names)
			}
			seen[n] = true
		}
	})
}

func TestCommonAncestorThroughCompare(t *testing.T) {
	env := newEnv(t)
	l := newLineageSpace(t, env)
	a := l.note(t, l.main, "A")
	x := l.fork(t, a.ID, "x")
	b := l.note(t, l.main, "B")
	y := l.fork(t, b.ID, "y")
	x1 := l.note(t, x.SessionID, "X1")
	y1 := l.note(t, y.SessionID, "Y1")
	c := l.note(t, l.main, "C")
	sp, msg := l.space.String(), "unrelated"
	root := storetest.Get(env.c.CreateCheckpoint(bg, wire.LegacyCommitRequest{RepoID: &sp, BranchName: "orphan",
		ContentFields: wire.ContentFields{Message: &msg}})).Must(t)
	src := x1.ID.String()
	merged := storetest.Get(env.c.Merge(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src,
		Resolutions: []smriti.MergeResolution{{Field: "summary", Choice: smriti.ChooseOurs}}})).Must(t)
	x2 := l.note(t, x.SessionID, "X2")

	for _, tc := range []struct {
		name string
		a, b smriti.ID
		want *smriti.ID
	}{
		{"SameIsItself", b.ID, b.ID, &b.ID},
		{"AncestorIsTheAncestor", c.ID, a.ID, &a.ID},
		{"SiblingsMeetAtTheForkPoint", x1.ID, y1.ID, &a.ID},
		{"BranchAndMainMeetAtTheForkPoint", y1.ID, c.ID, &b.ID},
		{"UnrelatedHaveNone", root.ID, c.ID, nil},
		{"AcrossAMergeTheMergedHead", merged.Checkpoint.ID, x2.ID, &x1.ID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := storetest.Get(env.c.Compare(bg, tc.a, tc.b)).Must(t).Diff.CommonAncestorCommitID
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("common ancestor = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCompareNormalisesAndReportsEveryList(t *testing.T) {
	env := newEnv(t)
	l := newLineageSpace(t, env)
	msgA, msgB := "A", "B"
	a := l.commit(t, l.main, wire.ContentFields{Message: &msgA, Summary: "first", Decisions: []string{"Fly to Sydney.", "Rent a car"},
		Tasks: []smriti.Task{{Text: "Book hotel", Status: "open", Structured: true}}, OpenQuestions: []string{"Which beach?"},
		Entities: []string{"Sydney", "Qantas"}})
	b := l.commit(t, l.main, wire.ContentFields{Message: &msgB, Summary: "second", Decisions: []string{"fly to   SYDNEY", "Take the train"},
		Tasks: []smriti.Task{{Text: "book hotel!"}}, OpenQuestions: []string{"which beach"}, Entities: []string{"Sydney", "Melbourne"}})
	got := storetest.Get(env.c.Compare(bg, a.ID, b.ID)).Must(t)
	d := got.Diff
	for name, pair := range map[string][2][]string{
		"decisions_shared":      {d.DecisionsShared, {"Fly to Sydney."}},
		"decisions_only_a":      {d.DecisionsOnlyA, {"Rent a car"}},
		"decisions_only_b":      {d.DecisionsOnlyB, {"Take the train"}},
		"tasks_shared":          {d.TasksShared, {"Book hotel"}},
		"open_questions_shared": {d.OpenQuestionsShared, {"Which beach?"}},
		"entities_only_a":       {d.EntitiesOnlyA, {"Qantas"}},
		"entities_only_b":       {d.EntitiesOnlyB, {"Melbourne"}},
		"entities_shared":       {d.EntitiesShared, {"Sydney"}},
		"assumptions_shared":    {d.AssumptionsShared, {}},
	} {
		if !slices.Equal(pair[0], pair[1]) || pair[0] == nil {
			t.Errorf("%s = %#v, want %#v", name, pair[0], pair[1])
		}
	}
	if d.SummaryA != "first" || d.SummaryB != "second" || d.CommonAncestorCommitID == nil || *d.CommonAncestorCommitID != a.ID {
		t.Errorf("diff = %+v", d)
	}
	if got.CheckpointA.Entities[1] != "Qantas" || got.CheckpointB.CommitHash != b.CommitHash || !got.CheckpointA.Tasks[0].Structured {
		t.Errorf("details = %+v / %+v", got.CheckpointA, got.CheckpointB)
	}

	other := newLineageSpace(t, env)
	o := other.note(t, other.main, "O")
	// Across spaces: a diff, and no common ancestor.
	across := storetest.Get(env.c.Compare(bg, a.ID, o.ID)).Must(t)
	if across.Diff.CommonAncestorCommitID != nil || across.CheckpointB.ID != o.ID {
		t.Errorf("compare across spaces = %+v", across.Diff)
	}
}

// mergeCase is one three-way merge through the API: base on main, then
// ours on main and theirs on a branch forked from base.
type mergeCase struct {
	name                string
	base, ours, theirs  wire.ContentFields
	wantConflicts       []string // field/kind of each conflict
	wantDecisions       []string
	wantTasks           []string
	resolutions         []smriti.MergeResolution
	wantSummary         string
	wantResolvedOnRetry int
}

func fields(msg, summary string, decisions []string, tasks ...smriti.Task) wire.ContentFields {
	return wire.ContentFields{Message: &msg, Summary: summary, Decisions: decisions, Tasks: tasks}
}

func TestMerge(t *testing.T) {
	open := smriti.Task{Text: "Book hotel", Status: "open", Structured: true}
	done := smriti.Task{Text: "Book hotel", Status: "done", Structured: true}
	cases := []mergeCase{
		{name: "AddedOnOneSideIsKept",
			base: fields("base", "s", []string{"D1"}), ours: fields("ours", "s", []string{"D1"}),
			theirs: fields("theirs", "s", []string{"D1", "D2"}), wantDecisions: []string{"D1", "D2"}, wantSummary: "s"},
		{name: "AddedOnBothSidesKeepsBoth",
			base: fields("base", "s", []string{"D1"}), ours: fields("ours", "s", []string{"D1", "Ours"}),
			theirs: fields("theirs", "s", []string{"D1", "Theirs"}), wantDecisions: []string{"D1", "Ours", "Theirs"}, wantSummary: "s"},
		{name: "RemovedOnOneSideUntouchedOnTheOtherIsRemoved",
			base: fields("base", "s", []string{"D1", "D2"}), ours: fields("ours", "s", []string{"D1", "D2"}),
			theirs: fields("theirs", "s", []string{"D1"}), wantDecisions: []string{"D1"}, wantSummary: "s"},
		{name: "SummaryChangedOnOneSideTakesThatSide",
			base: fields("base", "s", nil), ours: fields("ours", "s", nil),
			theirs: fields("theirs", "new summary", nil), wantDecisions: []string{}, wantSummary: "new summary"},
		{name: "TaskRemovedVersusEditedConflicts",
			base: fields("base", "s", nil, open), ours: fields("ours", "s", nil, done), theirs: fields("theirs", "s", nil),
			wantConflicts: []string{"tasks/removed_vs_edited"},
			resolutions:   []smriti.MergeResolution{{Field: "tasks", Key: "book hotel", Choice: smriti.ChooseOurs}},
			wantDecisions: []string{}, wantTasks: []string{"Book hotel"}, wantSummary: "s", wantResolvedOnRetry: 1},
		{name: "SummaryEditedOnBothSidesConflictsUntilResolved",
			base: fields("base", "s", []string{"D1"}), ours: fields("ours", "ours summary", []string{"D1"}),
			theirs:        fields("theirs", "theirs summary", []string{"D1", "D2"}),
			wantConflicts: []string{"summary/both_changed"},
			resolutions:   []smriti.MergeResolution{{Field: "summary", Choice: smriti.ChooseCustom, Value: "both summaries"}},
			wantDecisions: []string{"D1", "D2"}, wantSummary: "both summaries", wantResolvedOnRetry: 1},
	}
	onBothEngines(t, func(t *testing.T, env *testEnv) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { runMergeCase(t, env, tc) })
		}
	})
}

func runMergeCase(t *testing.T, env *testEnv, tc mergeCase) {
	l := newLineageSpace(t, env)
	base := l.commit(t, l.main, tc.base)
	branch := l.fork(t, base.ID, "feature/"+strings.ToLower(tc.name[:8]))
	theirs := l.commit(t, branch.SessionID, tc.theirs)
	ours := l.commit(t, l.main, tc.ours)
	sp, src := l.space.String(), theirs.ID.String()
	req := wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src}

	preview := storetest.Get(env.c.MergePreview(bg, req)).Must(t)
	if preview.BaseCheckpointID == nil || *preview.BaseCheckpointID != base.ID || preview.TargetCheckpointID != ours.ID {
		t.Fatalf("preview base %v target %s, want %s %s", preview.BaseCheckpointID, preview.TargetCheckpointID, base.ID, ours.ID)
	}
	var kinds []string
	for _, c := range preview.Conflicts {
		kinds = append(kinds, c.Field+"/"+c.Kind)
	}
	if !slices.Equal(kinds, tc.wantConflicts) {
		t.Fatalf("preview conflicts = %v, want %v", kinds, tc.wantConflicts)
	}
	if want := "Merge " + branch.BranchName + " into main"; preview.Merged.Message != want {
		t.Fatalf("merged message = %q, want %q", preview.Merged.Message, want)
	}
	if after := storetest.Get(env.c.Checkpoints(bg, l.space, "")).Must(t); len(after) != 3 {
		t.Fatalf("a dry run wrote: %d checkpoints", len(after))
	}

	if len(tc.wantConflicts) > 0 {
		_, err := env.c.Merge(bg, req)
		wantCode(t, err, smriti.ECONFLICT)
		data, _ := smriti.ErrorData(err).(map[string]any)
		if list, _ := data["conflicts"].([]any); len(list) != len(tc.wantConflicts) || data["message"] == "" {
			t.Fatalf("409 detail = %v", data)
		}
		req.Resolutions = tc.resolutions
	}
	done := storetest.Get(env.c.Merge(bg, req)).Must(t)
	cp := done.Checkpoint
	if cp.ParentCommitID == nil || *cp.ParentCommitID != ours.ID || cp.MergeParentID == nil || *cp.MergeParentID != theirs.ID ||
		cp.BranchName != "main" || done.ConflictsResolved != tc.wantResolvedOnRetry {
		t.Fatalf("merge checkpoint = %+v (resolved %d)", cp, done.ConflictsResolved)
	}
	wantAuthor := "system"
	if tc.wantResolvedOnRetry > 0 {
		wantAuthor = "user"
	}
	if cp.AuthorType != wantAuthor {
		t.Fatalf("author_type = %s, want %s", cp.AuthorType, wantAuthor)
	}
	if !slices.Equal(cp.Decisions, tc.wantDecisions) || cp.Summary != tc.wantSummary {
		t.Fatalf("merged decisions %v summary %q, want %v %q", cp.Decisions, cp.Summary, tc.wantDecisions, tc.wantSummary)
	}
	if tc.wantTasks != nil {
		var texts []string
		for _, task := range cp.Tasks {
			texts = append(texts, task.Text)
		}
		if !slices.Equal(texts, tc.wantTasks) || cp.Tasks[0].Status != "done" {
			t.Fatalf("merged tasks = %+v", cp.Tasks)
		}
	}
	if v := storetest.Get(env.c.Verify(bg, cp.ID)).Must(t); !v.OK || v.Checked != 4 {
		t.Fatalf("verify merge = %+v", v)
	}
	tree := storetest.Get(env.c.Tree(bg, l.space)).Must(t)
	for _, se := range tree.Sessions {
		want := "active"
		if se.BranchName == branch.BranchName {
			want = "integrated"
		}
		if se.BranchDisposition != want {
			t.Fatalf("session on %s is %s, want %s", se.BranchName, se.BranchDisposition, want)
		}
	}
	if len(tree.Merges) != 1 || tree.Merges[0].CheckpointID != cp.ID || tree.Merges[0].SourceCheckpointID != theirs.ID {
		t.Fatalf("tree merges = %+v", tree.Merges)
	}
	// Merged now: the same source has nothing left to merge.
	_, err := env.c.Merge(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src})
	wantCode(t, err, smriti.ECONFLICT)
}

func TestLineageTreeShape(t *testing.T) {
	env := newEnv(t)
	l := newLineageSpace(t, env)
	a := l.note(t, l.main, "A")
	storetest.Get(env.c.AddNote(bg, a.ID, "big", "me", "milestone")).Must(t)
	storetest.Get(env.c.AddNote(bg, a.ID, "small", "me", "note")).Must(t)
	f := l.fork(t, a.ID, "exp")
	l.note(t, f.SessionID, "F1")
	storetest.Get(env.c.SetDisposition(bg, l.space, "exp", "abandoned")).Must(t)
	code, body := env.raw(t, "GET", "/api/v5/lineage/spaces/"+l.space.String(), "")
	if code != 200 {
		t.Fatalf("tree = %d %s", code, body)
	}
	var raw struct {
		Checkpoints []map[string]any `json:"checkpoints"`
		Sessions    []map[string]any `json:"sessions"`
		Merges      []any            `json:"merges"`
	}
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		t.Fatal(err)
	}
	first := raw.Checkpoints[0]
	for _, k := range []string{"id", "commit_hash", "message", "branch_name", "parent_checkpoint_id", "merge_parent_id", "created_at",
		"summary", "objective", "author_agent", "note_count", "note_kinds"} {
		if _, ok := first[k]; !ok {
			t.Errorf("checkpoint node lacks %q", k)
		}
	}
	if first["note_count"] != 2.0 || fmt.Sprint(first["note_kinds"]) != "[milestone note]" || first["parent_checkpoint_id"] != nil {
		t.Errorf("node A = %v", first)
	}
	if raw.Sessions[1]["branch_disposition"] != "abandoned" || raw.Merges == nil || !strings.Contains(body, `"merges":[]`) {
		t.Errorf("tree = %v", raw)
	}
}

func TestLineageErrors(t *testing.T) {
	env := newEnv(t)
	l := newLineageSpace(t, env)
	a := l.note(t, l.main, "A")
	f := l.fork(t, a.ID, "taken")
	l.note(t, f.SessionID, "F1")
	sp, cp, unknown := l.space.String(), a.ID.String(), smriti.NewID().String()
	body := func(fields ...string) string { return "{" + strings.Join(fields, ",") + "}" }
	kv := func(k, v string) string { return fmt.Sprintf("%q:%q", k, v) }

	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		detail                   string
	}{
		{"ForkMalformedJSON", "POST", "/api/v5/lineage/sessions/fork", `{"space_id":`, 400, "malformed JSON"},
		{"ForkEmptyBody", "POST", "/api/v5/lineage/sessions/fork", ``, 400, "empty"},
		{"ForkWrongType", "POST", "/api/v5/lineage/sessions/fork", `{"space_id": 5, "checkpoint_id": "x"}`, 422, "space_id"},
		{"ForkMissingIDs", "POST", "/api/v5/lineage/sessions/fork", `{}`, 422, "required"},
		{"ForkBadUUID", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", "nope"), kv("checkpoint_id", cp)), 400, "Invalid space_id or checkpoint_id"},
		{"ForkUnknownSpace", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", unknown), kv("checkpoint_id", cp)), 404, "Space not found"},
		{"ForkUnknownCheckpoint", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", sp), kv("checkpoint_id", unknown)), 404, "Checkpoint not found"},
		{"ForkExplicitMain", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", sp), kv("checkpoint_id", cp), kv("branch_name", "main")), 409, "reserved"},
		{"ForkBranchInUse", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", sp), kv("checkpoint_id", cp), kv("branch_name", "taken")), 409, "already exists"},
		{"ForkControlCharacters", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", sp), kv("checkpoint_id", cp), kv("branch_name", "a\nb")), 422, "control"},
		{"ForkBranchTooLong", "POST", "/api/v5/lineage/sessions/fork", body(kv("space_id", sp), kv("checkpoint_id", cp), kv("branch_name", strings.Repeat("b", 256))), 422, "at most 255"},

		{"TreeBadUUID", "GET", "/api/v5/lineage/spaces/nope", "", 400, "space_id"},
		{"TreeUnknown", "GET", "/api/v5/lineage/spaces/" + unknown, "", 404, "Space not found"},

		{"CompareBadUUID", "GET", "/api/v5/lineage/checkpoints/nope/compare/" + cp, "", 400, "a_id"},
		{"CompareBadSecondUUID", "GET", "/api/v5/lineage/checkpoints/" + cp + "/compare/nope", "", 400, "b_id"},
		{"CompareUnknown", "GET", "/api/v5/lineage/checkpoints/" + cp + "/compare/" + unknown, "", 404, "Checkpoint not found"},

		{"ReachableBadUUID", "GET", "/api/v5/lineage/sessions/nope/checkpoints", "", 400, "session_id"},
		{"ReachableUnknown", "GET", "/api/v5/lineage/sessions/" + unknown + "/checkpoints", "", 404, "Session not found"},

		{"DispositionMalformedJSON", "PATCH", "/api/v5/lineage/branches/disposition", `{`, 400, "malformed JSON"},
		{"DispositionWrongType", "PATCH", "/api/v5/lineage/branches/disposition", `{"space_id": [], "branch_name": "x", "disposition": "active"}`, 422, "space_id"},
		{"DispositionBadUUID", "PATCH", "/api/v5/lineage/branches/disposition", body(kv("space_id", "nope"), kv("branch_name", "taken"), kv("disposition", "active")), 400, "Invalid space_id"},
		{"DispositionUnknownSpace", "PATCH", "/api/v5/lineage/branches/disposition", body(kv("space_id", unknown), kv("branch_name", "taken"), kv("disposition", "active")), 404, "Space not found"},
		{"DispositionInvalid", "PATCH", "/api/v5/lineage/branches/disposition", body(kv("space_id", sp), kv("branch_name", "taken"), kv("disposition", "merged")), 400, "Invalid disposition 'merged'. Must be one of: abandoned, active, integrated"},
		{"DispositionUnknownBranch", "PATCH", "/api/v5/lineage/branches/disposition", body(kv("space_id", sp), kv("branch_name", "nope"), kv("disposition", "active")), 404, "No sessions found on branch 'nope' in this space."},
		{"DispositionMissingBranch", "PATCH", "/api/v5/lineage/branches/disposition", body(kv("space_id", sp), kv("disposition", "active")), 422, "branch_name"},

		{"MergeMalformedJSON", "POST", "/api/v5/lineage/merge", `{"space_id"`, 400, "malformed JSON"},
		{"MergeWrongType", "POST", "/api/v5/lineage/merge", `{"space_id": "x", "source_checkpoint_id": "y", "dry_run": "yes"}`, 422, "dry_run"},
		{"MergeWrongResolutionType", "POST", "/api/v5/lineage/merge", `{"space_id": "x", "source_checkpoint_id": "y", "resolutions": {}}`, 422, "resolutions"},
		{"MergeBadUUID", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp), kv("source_checkpoint_id", "nope")), 400, "source_checkpoint_id"},
		{"MergeBadTargetUUID", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp), kv("source_checkpoint_id", cp), kv("target_checkpoint_id", "nope")), 400, "target_checkpoint_id"},
		{"MergeMissingSource", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp)), 422, "source_checkpoint_id is required"},
		{"MergeUnknownSpace", "POST", "/api/v5/lineage/merge", body(kv("space_id", unknown), kv("source_checkpoint_id", cp)), 404, "Space not found"},
		{"MergeUnknownSource", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp), kv("source_checkpoint_id", unknown)), 404, "Source checkpoint not found"},
		{"MergeUnknownTarget", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp), kv("source_checkpoint_id", cp), kv("target_checkpoint_id", unknown)), 404, "Target checkpoint not found"},
		{"MergeSourceIsTarget", "POST", "/api/v5/lineage/merge", body(kv("space_id", sp), kv("source_checkpoint_id", cp)), 409, "Nothing to merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := env.raw(t, tc.method, tc.path, tc.body)
			if status != tc.status || !strings.Contains(got, tc.detail) || !strings.HasPrefix(got, `{"detail":`) {
				t.Fatalf("%s %s = %d %s, want %d containing %q", tc.method, tc.path, status, got, tc.status, tc.detail)
			}
		})
	}

	t.Run("MergeAnAncestorIsNothingToMerge", func(t *testing.T) {
		l.note(t, l.main, "B")
		_, err := env.c.Merge(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &cp})
		wantCode(t, err, smriti.ECONFLICT)
		if !strings.Contains(err.Error(), "already in the history") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("MergeIntoANonHeadTarget", func(t *testing.T) {
		heads := storetest.Get(env.c.Checkpoints(bg, l.space, "taken")).Must(t)
		src := heads[0].ID.String()
		_, err := env.c.Merge(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src, TargetCheckpointID: &cp})
		wantCode(t, err, smriti.ECONFLICT)
		if !strings.Contains(err.Error(), "not the head") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("MergeResolutionNamingNoConflict", func(t *testing.T) {
		heads := storetest.Get(env.c.Checkpoints(bg, l.space, "taken")).Must(t)
		src := heads[0].ID.String()
		_, err := env.c.MergePreview(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src,
			Resolutions: []smriti.MergeResolution{{Field: "objective", Choice: "ours"}}})
		wantCode(t, err, smriti.EUNPROCESSABLE)
		_, err = env.c.MergePreview(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src,
			Resolutions: []smriti.MergeResolution{{Field: "summary", Choice: "mine"}}})
		wantCode(t, err, smriti.EUNPROCESSABLE)
	})
	t.Run("MergeSourceFromAnotherSpace", func(t *testing.T) {
		other := newLineageSpace(t, env)
		o := other.note(t, other.main, "O").ID.String()
		_, err := env.c.Merge(bg, wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &o})
		wantCode(t, err, smriti.EINVALID)
	})
	t.Run("DispositionAcceptsMain", func(t *testing.T) {
		got := storetest.Get(env.c.SetDisposition(bg, l.space, "main", "active")).Must(t)
		if got.SessionsUpdated != 1 || got.BranchName != "main" {
			t.Fatalf("disposition = %+v", got)
		}
	})
	t.Run("EveryLineageRouteIsInTheOpenAPIDocument", func(t *testing.T) {
		var doc struct {
			Paths map[string]map[string]any `json:"paths"`
		}
		if _, err := env.c.Do(bg, http.MethodGet, "/openapi.json", nil, &doc); err != nil {
			t.Fatal(err)
		}
		for path, method := range map[string]string{
			"/api/v5/lineage/sessions/fork": "post", "/api/v5/lineage/spaces/{space_id}": "get",
			"/api/v5/lineage/checkpoints/{a_id}/compare/{b_id}": "get", "/api/v5/lineage/sessions/{session_id}/checkpoints": "get",
			"/api/v5/lineage/branches/disposition": "patch", "/api/v5/lineage/merge": "post",
		} {
			if doc.Paths[path][method] == nil {
				t.Errorf("%s %s missing from /openapi.json", method, path)
			}
		}
	})
}
