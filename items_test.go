package smriti

import (
	"fmt"
	"strings"
	"testing"
)

func baseState() (*Content, []Item) {
	c := &Content{Message: "Base", Decisions: []string{"Use Go with cobra", "Access token TTL is 15 minutes"},
		Assumptions: []string{"Users have git installed"}, Tasks: []Task{{Text: "Write the install script", IntentHint: "implement", Structured: true}},
		OpenQuestions: []string{"Do we sign binaries?"}, Entities: []string{"Homebrew"}}
	return c, AssignItems(c, nil, nil, ItemOrigin{})
}

func idOf(t *testing.T, items []Item, text string) string {
	t.Helper()
	for _, it := range items {
		if it.Text == text {
			return it.ID
		}
	}
	t.Fatalf("no item %q", text)
	return ""
}

func i64p(v int64) *int64 { return &v }

func TestComposeDraft(t *testing.T) {
	c, items := baseState()
	ttl, git, task, q := idOf(t, items, "Access token TTL is 15 minutes"), idOf(t, items, "Users have git installed"),
		idOf(t, items, "Write the install script"), idOf(t, items, "Do we sign binaries?")
	cobra := idOf(t, items, "Use Go with cobra")
	tests := []struct {
		name        string
		ops         []DraftOp
		decisions   string
		assumptions string
		tasks       string
		questions   string
		changes     string
		warnings    int
	}{
		{"NoOpsCarriesEverything", nil, "Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed",
			"Write the install script", "Do we sign binaries?", "", 0},
		{"Add", []DraftOp{{Op: "add", Kind: "decision", Text: "Ship a Homebrew formula", FromSeq: i64p(3), ToSeq: i64p(3)}},
			"Use Go with cobra|Access token TTL is 15 minutes|Ship a Homebrew formula", "Users have git installed",
			"Write the install script", "Do we sign binaries?", "add", 0},
		{"AddOfALiveItemIsDropped", []DraftOp{{Op: "add", Kind: "decisions", Text: "use go with cobra."}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "", 0},
		{"Update", []DraftOp{{Op: "update", ID: ttl, Text: "Access token TTL is 30 minutes"}},
			"Use Go with cobra|Access token TTL is 30 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "update", 0},
		{"ResolveTask", []DraftOp{{Op: "resolve", ID: task, By: "merged in #12"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script (done)", "Do we sign binaries?", "resolve", 0},
		{"ResolveQuestionRemovesItFromTheList", []DraftOp{{Op: "resolve", ID: q, By: "yes, with cosign"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "", "resolve", 0},
		{"ResolveADecisionIsRefused", []DraftOp{{Op: "resolve", ID: cobra}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "", 1},
		{"Retract", []DraftOp{{Op: "retract", ID: git, Reason: "we ship a binary"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "", "Write the install script", "Do we sign binaries?", "retract", 0},
		{"SupersedeTakesThePlace", []DraftOp{{Op: "supersede", ID: cobra, Text: "Use Rust with clap"}},
			"Use Rust with clap|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "supersede", 0},
		{"UnknownIDIsRefused", []DraftOp{{Op: "update", ID: "d-000000", Text: "x"}, {Op: "retract", ID: "nope"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "", 2},
		{"OpOnARetractedItemIsRefused", []DraftOp{{Op: "retract", ID: git}, {Op: "update", ID: git, Text: "x"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "", "Write the install script", "Do we sign binaries?", "retract", 1},
		{"UnknownOpAndKindAreRefused", []DraftOp{{Op: "delete", ID: git}, {Op: "add", Kind: "mood", Text: "x"}, {Op: "add", Kind: "task"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed", "Write the install script", "Do we sign binaries?", "", 3},
		{"ResolveByTextAddsADoneTask", []DraftOp{{Op: "resolve", Kind: "task", Text: "Publish the release"}},
			"Use Go with cobra|Access token TTL is 15 minutes", "Users have git installed",
			"Write the install script|Publish the release (done)", "Do we sign binaries?", "add", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComposeDraft(c, items, tt.ops, nil, nil, nil, nil)
			var tasks, changes []string
			for _, tk := range got.Content.Tasks {
				s := tk.Text
				if tk.Status == ItemDone {
					s += " (done)"
				}
				tasks = append(tasks, s)
			}
			for _, ch := range got.Changes {
				changes = append(changes, ch.Op)
			}
			if g := strings.Join(got.Content.Decisions, "|"); g != tt.decisions {
				t.Errorf("decisions %q, want %q", g, tt.decisions)
			}
			if g := strings.Join(got.Content.Assumptions, "|"); g != tt.assumptions {
				t.Errorf("assumptions %q, want %q", g, tt.assumptions)
			}
			if g := strings.Join(tasks, "|"); g != tt.tasks {
				t.Errorf("tasks %q, want %q", g, tt.tasks)
			}
			if g := strings.Join(got.Content.OpenQuestions, "|"); g != tt.questions {
				t.Errorf("questions %q, want %q", g, tt.questions)
			}
			if g := strings.Join(changes, ","); g != tt.changes {
				t.Errorf("changes %q, want %q", g, tt.changes)
			}
			if len(got.Warnings) != tt.warnings {
				t.Errorf("warnings %q, want %d", got.Warnings, tt.warnings)
			}
			// Carried items keep their ids and annotations.
			for _, it := range got.Items {
				if it.Text == "Write the install script" && (it.ID != task || it.Task == nil || it.Task.IntentHint != "implement") {
					t.Errorf("carried task = %+v", it)
				}
				if it.Text == "Use Go with cobra" && it.Live() && (it.ID != cobra || it.Change != nil) {
					t.Errorf("carried decision = %+v", it)
				}
			}
			if c.Decisions[1] != "Access token TTL is 15 minutes" || items[1].Text != "Access token TTL is 15 minutes" {
				t.Fatal("the base was changed")
			}
		})
	}
	t.Run("UpdateKeepsTheID", func(t *testing.T) {
		got := ComposeDraft(c, items, []DraftOp{{Op: "update", ID: ttl, Text: "Access token TTL is 30 minutes"}}, nil, nil, nil, nil)
		if idOf(t, got.Items, "Access token TTL is 30 minutes") != ttl {
			t.Error("update changed the id")
		}
	})
	t.Run("SupersedeRecordsTheOldItem", func(t *testing.T) {
		got := ComposeDraft(c, items, []DraftOp{{Op: "supersede", ID: cobra, Text: "Use Rust with clap"}}, nil, nil, nil, nil)
		var old, nu *Item
		for i := range got.Items {
			switch got.Items[i].Text {
			case "Use Go with cobra":
				old = &got.Items[i]
			case "Use Rust with clap":
				nu = &got.Items[i]
			}
		}
		if old == nil || old.Status != ItemSuperseded || nu == nil || len(nu.Supersedes) != 1 || nu.Supersedes[0] != cobra || nu.ID == cobra {
			t.Errorf("old %+v new %+v", old, nu)
		}
	})
}

func TestAssignItems(t *testing.T) {
	c, parent := baseState()
	cobra, git := idOf(t, parent, "Use Go with cobra"), idOf(t, parent, "Users have git installed")
	t.Run("SameNormalisedTextKeepsTheID", func(t *testing.T) {
		next := *c
		next.Decisions = []string{"use Go with Cobra!", "Access token TTL is 15 minutes"}
		got := AssignItems(&next, parent, nil, ItemOrigin{})
		it := got[0]
		if it.ID != cobra || it.Change == nil || it.Change.Op != OpUpdate || *it.Change.Before != "Use Go with cobra" {
			t.Errorf("reworded = %+v", it)
		}
		if got[1].Change != nil {
			t.Errorf("unchanged item = %+v, want carried", got[1])
		}
	})
	t.Run("DroppedItemIsARetractedTombstone", func(t *testing.T) {
		next := *c
		next.Assumptions = nil
		got := AssignItems(&next, parent, nil, ItemOrigin{})
		last := got[len(got)-1]
		if last.ID != git || last.Status != ItemRetracted || last.Live() {
			t.Errorf("tombstone = %+v", last)
		}
		var live Content
		setContentLists(&live, got)
		if len(live.Assumptions) != 0 || len(live.Decisions) != 2 {
			t.Errorf("lists = %+v", live)
		}
	})
	t.Run("HintKeepsAnUpdatedID", func(t *testing.T) {
		next := *c
		next.Decisions = []string{"Use Go with cobra", "Access token TTL is 30 minutes"}
		ttl := idOf(t, parent, "Access token TTL is 15 minutes")
		got := AssignItems(&next, parent, []Item{{ID: ttl, Kind: KindDecision, Text: "Access token TTL is 30 minutes"}}, ItemOrigin{})
		if got[1].ID != ttl || got[1].Change == nil || got[1].Change.Op != OpUpdate {
			t.Errorf("hinted = %+v", got[1])
		}
		for _, it := range got {
			if !it.Live() {
				t.Errorf("unexpected tombstone %+v", it)
			}
		}
	})
	t.Run("DoneTaskKeepsItsID", func(t *testing.T) {
		next := *c
		next.Tasks = []Task{{Text: "Write the install script", IntentHint: "implement", Status: "done", Structured: true}}
		got := AssignItems(&next, parent, nil, ItemOrigin{})
		for _, it := range got {
			if it.Kind == KindTask && (it.ID != idOf(t, parent, "Write the install script") || it.Status != ItemDone || it.Change.Op != OpResolve) {
				t.Errorf("done task = %+v", it)
			}
		}
	})
	t.Run("DuplicateTextsGetDistinctIDs", func(t *testing.T) {
		got := AssignItems(&Content{Decisions: []string{"X", "x"}}, nil, nil, ItemOrigin{})
		if got[0].ID == got[1].ID || !ValidItemID(got[0].ID) || !ValidItemID(got[1].ID) {
			t.Errorf("ids %s %s", got[0].ID, got[1].ID)
		}
	})
}

// TestMergeItemsMatrix runs every combination of keep / update / retract /
// resolve on each side against one base item.
func TestMergeItemsMatrix(t *testing.T) {
	base := []Item{{ID: "t-000001", Kind: KindTask, Text: "Write the install script", Status: ItemOpen}}
	side := func(op string, text string) []Item {
		it := base[0]
		switch op {
		case "keep":
		case "update":
			it.Text = text
		case "resolve":
			it.Status = ItemDone
		case "retract":
			it.Status = ItemRetracted
		}
		return []Item{it}
	}
	type want struct {
		text     string // "" = removed
		conflict string
		removed  string
	}
	cases := map[[2]string]want{
		{"keep", "keep"}:       {"Write the install script", "", ""},
		{"keep", "update"}:     {"Write the setup script", "", ""},
		{"keep", "resolve"}:    {"Write the install script (done)", "", ""},
		{"keep", "retract"}:    {"", "", "theirs"},
		{"update", "keep"}:     {"Write the uninstall script", "", ""},
		{"update", "update"}:   {"Write the uninstall script", "both_changed", ""},
		{"update", "resolve"}:  {"Write the uninstall script", "both_changed", ""},
		{"update", "retract"}:  {"Write the uninstall script", "removed_vs_edited", ""},
		{"resolve", "keep"}:    {"Write the install script (done)", "", ""},
		{"resolve", "update"}:  {"Write the install script (done)", "both_changed", ""},
		{"resolve", "resolve"}: {"Write the install script (done)", "", ""},
		{"resolve", "retract"}: {"Write the install script (done)", "removed_vs_edited", ""},
		{"retract", "keep"}:    {"", "", "ours"},
		{"retract", "update"}:  {"Write the setup script", "removed_vs_edited", ""},
		{"retract", "resolve"}: {"Write the install script (done)", "removed_vs_edited", ""},
		{"retract", "retract"}: {"", "", "both"},
	}
	for k, w := range cases {
		t.Run(k[0]+"/"+k[1], func(t *testing.T) {
			ours, theirs := side(k[0], "Write the uninstall script"), side(k[1], "Write the setup script")
			r, err := MergeStates(&MergeSide{Items: base}, &MergeSide{Items: ours}, &MergeSide{Items: theirs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(r.Merged.Tasks) == 1 {
				got = r.Merged.Tasks[0].Text
				if r.Merged.Tasks[0].Status == ItemDone {
					got += " (done)"
				}
			} else if len(r.Merged.Tasks) > 1 {
				t.Fatalf("tasks %+v", r.Merged.Tasks)
			}
			conflict, removed := "", ""
			if len(r.Conflicts) == 1 {
				conflict = r.Conflicts[0].Kind
				if r.Conflicts[0].Key != "t-000001" || r.Conflicts[0].Field != "tasks" {
					t.Errorf("conflict %+v", r.Conflicts[0])
				}
			} else if len(r.Conflicts) > 1 {
				t.Fatalf("conflicts %+v", r.Conflicts)
			}
			if len(r.Removes) == 1 {
				removed = r.Removes[0].Side
			}
			if got != w.text || conflict != w.conflict || removed != w.removed {
				t.Errorf("got %q conflict %q removed %q, want %+v", got, conflict, removed, w)
			}
		})
	}
}

func benchItems(n int) (*Content, []Item) {
	c := &Content{}
	for i := 0; i < n; i++ {
		switch i % 5 {
		case 0:
			c.Decisions = append(c.Decisions, fmt.Sprintf("Decision number %d about the storage layer", i))
		case 1:
			c.Assumptions = append(c.Assumptions, fmt.Sprintf("Assumption %d about users", i))
		case 2:
			c.Tasks = append(c.Tasks, Task{Text: fmt.Sprintf("Task %d to write", i)})
		case 3:
			c.OpenQuestions = append(c.OpenQuestions, fmt.Sprintf("Question %d still open?", i))
		default:
			c.Entities = append(c.Entities, fmt.Sprintf("Entity%d", i))
		}
	}
	return c, AssignItems(c, nil, nil, ItemOrigin{})
}

func BenchmarkComposeDraft500(b *testing.B) {
	c, items := benchItems(500)
	ops := []DraftOp{{Op: "add", Kind: "decision", Text: "A new decision"}, {Op: "update", ID: items[0].ID, Text: "Changed"},
		{Op: "retract", ID: items[1].ID}, {Op: "resolve", ID: items[200].ID}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ComposeDraft(c, items, ops, nil, nil, nil, nil)
	}
}

func BenchmarkMergeItems500(b *testing.B) {
	c, base := benchItems(500)
	ours := ComposeDraft(c, base, []DraftOp{{Op: "update", ID: base[0].ID, Text: "Ours"}, {Op: "add", Kind: "task", Text: "Ours new"}}, nil, nil, nil, nil)
	theirs := ComposeDraft(c, base, []DraftOp{{Op: "update", ID: base[5].ID, Text: "Theirs"}, {Op: "retract", ID: base[7].ID}}, nil, nil, nil, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := MergeStates(&MergeSide{Content: *c, Items: base}, &MergeSide{Content: ours.Content, Items: ours.Items},
			&MergeSide{Content: theirs.Content, Items: theirs.Items}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssignItems200(b *testing.B) {
	c, parent := benchItems(200)
	next := *c
	next.Decisions = append([]string{"A brand new decision"}, c.Decisions[1:]...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		AssignItems(&next, parent, nil, ItemOrigin{})
	}
}
