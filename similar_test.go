package smriti

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestNearSameItem(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"PriceChangedIsAnEdit", "Pricing is per-seat at $12", "Pricing is per-seat at $14", true},
		{"PriceChangedOtherWayIsAnEdit", "Pricing is per-seat at $12", "Pricing is per-seat at $10", true},
		{"TTLChangedIsAnEdit", "Access token TTL is 15 minutes", "access token TTL is now 30 minutes", true},
		{"NumberWordsCount", "Keep three replicas per region", "Keep five replicas per region", true},
		{"NegationIsAnEdit", "We will use Redis", "We will not use Redis", true},
		{"AWordAddedIsAnEdit", "Retries use exponential backoff", "Retries use exponential backoff with jitter", true},
		{"SameTextIsTheSame", "Use Go", "use go!", true},
		{"DifferentChoiceIsNotAnEdit", "Use Postgres for storage", "Use Redis for caching", false},
		{"DifferentToolIsNotAnEdit", "Ship the CLI first", "Ship the web UI first", false},
		{"DifferentObjectIsNotAnEdit", "Write tests for the store", "Write docs for the store", false},
		{"OneSharedWordIsNotEnough", "Use Go", "Use Rust", false},
		{"NumbersAloneNameNoSubject", "15 minutes", "30 minutes", false},
		{"UnrelatedIsNotAnEdit", "Deploy on Fridays", "Budget is 40k", false},
		{"EmptyIsNotAnEdit", "", "Use Go", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nearSameItem(tt.a, tt.b); got != tt.want {
				t.Fatalf("nearSameItem(%q, %q) = %v, want %v ", tt.a, tt.b, got, tt.want)
			}
			if got := nearSameItem(tt.b, tt.a); got != tt.want {
				t.Fatalf("nearSameItem is not symmetric for %q, %q", tt.a, tt.b)
			}
		})
	}
}

func TestPairNearSameTakesTheBestPair(t *testing.T) {
	removed := []*Item{{ID: "d-000001", Kind: KindDecision, Text: "Pricing is per-seat at $12"}, {ID: "d-000002", Kind: KindDecision, Text: "Trial lasts 14 days"}}
	added := []*Item{{Kind: KindDecision, Text: "Trial lasts 30 days"}, {Kind: KindDecision, Text: "Pricing is per-seat at $14"},
		{Kind: KindTask, Text: "Trial lasts 7 days"}}
	got := pairNearSame(removed, added)
	if want := map[int]int{0: 1, 1: 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pairs %v, want %v (a task never pairs with a decision)", got, want)
	}
}

func TestAssignItemsTextOnlyEditKeepsTheID(t *testing.T) {
	parent := AssignItems(&Content{Decisions: []string{"Pricing is per-seat at $12", "Use Go"}, Tasks: []Task{{Text: "Write the importer"}}}, nil, nil, ItemOrigin{})
	price, goID := parent[0].ID, parent[1].ID

	t.Run("RewordedItemIsAnUpdate", func(t *testing.T) {
		got := AssignItems(&Content{Decisions: []string{"Pricing is per-seat at $14", "Use Go"}, Tasks: []Task{{Text: "Write the importer"}}}, parent, nil, ItemOrigin{})
		if got[0].ID != price || got[0].Change == nil || got[0].Change.Op != OpUpdate || got[0].Change.Before == nil || *got[0].Change.Before != "Pricing is per-seat at $12" {
			t.Fatalf("edited item %+v, want an update of %s from $12", got[0], price)
		}
		if got[1].ID != goID || got[1].Change != nil {
			t.Fatalf("untouched item %+v", got[1])
		}
		for _, it := range got {
			if !it.Live() {
				t.Fatalf("a tombstone was written for an edit: %+v", it)
			}
		}
	})

	t.Run("UnrelatedReplacementIsRetractPlusAdd", func(t *testing.T) {
		got := AssignItems(&Content{Decisions: []string{"Budget is 40k", "Use Go"}, Tasks: []Task{{Text: "Write the importer"}}}, parent, nil, ItemOrigin{})
		if got[0].ID == price || got[0].Change.Op != OpAdd {
			t.Fatalf("unrelated item %+v took the old id", got[0])
		}
		last := got[len(got)-1]
		if last.ID != price || last.Status != ItemRetracted {
			t.Fatalf("old item %+v, want retracted", last)
		}
	})

	t.Run("AnExplicitRetractionStaysARetraction", func(t *testing.T) {
		hints := []Item{{ID: price, Kind: KindDecision, Text: "Pricing is per-seat at $12", Status: ItemRetracted}}
		got := AssignItems(&Content{Decisions: []string{"Pricing is per-seat at $14", "Use Go"}, Tasks: []Task{{Text: "Write the importer"}}}, parent, hints, ItemOrigin{})
		if got[0].ID == price {
			t.Fatalf("a hint retracted %s, yet the new item took its id", price)
		}
	})

	t.Run("AnAddWithItsOwnIDStaysAnAdd", func(t *testing.T) {
		hints := []Item{{ID: "d-abcdef", Kind: KindDecision, Text: "Pricing is per-seat at $14", Status: ItemOpen}}
		got := AssignItems(&Content{Decisions: []string{"Pricing is per-seat at $14", "Use Go"}, Tasks: []Task{{Text: "Write the importer"}}}, parent, hints, ItemOrigin{})
		if got[0].ID != "d-abcdef" {
			t.Fatalf("item %+v, want the proposed id d-abcdef", got[0])
		}
	})
}

// The $12 / $14 / $10 case: main and a branch edit one decision of their
// common ancestor, each as a remove + add (a client that sends only text);
// the merge has one conflict, on that decision's id.
func TestMergeTextOnlyEditsOfOneItemConflict(t *testing.T) {
	base := &Content{Decisions: []string{"Pricing is per-seat at $12", "Use Go"}}
	ours := &Content{Decisions: []string{"Use Go", "Pricing is per-seat at $14"}}
	theirs := &Content{Decisions: []string{"Pricing is per-seat at $10", "Use Go"}}
	baseID := AssignItems(base, nil, nil, ItemOrigin{})[0].ID

	r, err := mergeContents(base, ours, theirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []MergeConflict{{Field: "decisions", Key: baseID, Kind: conflictBothChanged,
		Base: "Pricing is per-seat at $12", Ours: "Pricing is per-seat at $14", Theirs: "Pricing is per-seat at $10"}}
	if !reflect.DeepEqual(r.Conflicts, want) {
		t.Fatalf("conflicts %+v, want %+v", r.Conflicts, want)
	}
	if !reflect.DeepEqual(r.Merged.Decisions, []string{"Use Go", "Pricing is per-seat at $14"}) {
		t.Fatalf("provisional merge %q holds both prices", r.Merged.Decisions)
	}

	t.Run("OneSideRewritesTheOtherRetracts", func(t *testing.T) {
		r, _ := mergeContents(base, &Content{Decisions: []string{"Use Go"}}, theirs, nil)
		if len(r.Conflicts) != 1 || r.Conflicts[0].Kind != conflictRemovedVsEdited || r.Conflicts[0].Key != baseID {
			t.Fatalf("conflicts %+v, want removed_vs_edited on %s", r.Conflicts, baseID)
		}
	})
	t.Run("UnrelatedAdditionsBothStay", func(t *testing.T) {
		r, _ := mergeContents(base, &Content{Decisions: []string{"Use Go", "Pricing is per-seat at $12", "Budget is 40k"}},
			&Content{Decisions: []string{"Use Go", "Pricing is per-seat at $12", "Deploy on Fridays"}}, nil)
		if len(r.Conflicts) != 0 || len(r.Merged.Decisions) != 4 {
			t.Fatalf("merged %q conflicts %+v", r.Merged.Decisions, r.Conflicts)
		}
	})
}

func BenchmarkNearSameMatch500(b *testing.B) {
	var ds []string
	for i := 0; i < 500; i++ {
		ds = append(ds, fmt.Sprintf("Service %d keeps its cache for %d minutes behind region gateway %d", i, i%60, i%7))
	}
	parent := AssignItems(&Content{Decisions: ds}, nil, nil, ItemOrigin{})
	// 50 items reworded as text only, 50 dropped, 50 unrelated added.
	next := append([]string(nil), ds[100:]...)
	for i := 0; i < 50; i++ {
		next = append(next, fmt.Sprintf("Service %d keeps its cache for %d minutes behind region gateway %d", i, i%60+1, i%7))
		next = append(next, fmt.Sprintf("Unrelated note number %d about billing", i))
	}
	c := &Content{Decisions: next}
	b.Run("AssignItems", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			AssignItems(c, parent, nil, ItemOrigin{})
		}
	})
	// The similarity match alone: the 100 dropped items against the 100 added.
	var dropped, added []*Item
	for i := range parent[:100] {
		dropped = append(dropped, &parent[i])
	}
	for _, d := range next[400:] {
		added = append(added, &Item{Kind: KindDecision, Text: d})
	}
	b.Run("Match", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if n := len(pairNearSame(dropped, added)); n != 50 {
				b.Fatalf("%d pairs, want 50", n)
			}
		}
	})
}

// pairNearSameSorted is pairNearSame as first written (every candidate
// sorted by score, removed index, added index): the bucketed ordering must
// pair exactly as it does.
func pairNearSameSorted(removed, added []*Item) map[int]int {
	type cand struct {
		r, a  int
		score float64
	}
	v := vocabulary{}
	rw := make([]itemWords, len(removed))
	for i, it := range removed {
		rw[i] = v.wordsOf(it.Text)
	}
	var cands []cand
	for ai, a := range added {
		aw := v.wordsOf(a.Text)
		for ri, r := range removed {
			if r.Kind == a.Kind {
				if s := similarityFull(rw[ri], aw); s > 0 {
					cands = append(cands, cand{ri, ai, s})
				}
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		x, y := cands[i], cands[j]
		if x.score != y.score {
			return x.score > y.score
		}
		if x.r != y.r {
			return x.r < y.r
		}
		return x.a < y.a
	})
	out := map[int]int{}
	usedR := map[int]bool{}
	for _, c := range cands {
		if _, ok := out[c.a]; ok || usedR[c.r] {
			continue
		}
		usedR[c.r] = true
		out[c.a] = c.r
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func TestPairNearSameOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	words := []string{"service", "cache", "gateway", "region", "not", "never", "keeps", "minutes", "two", "3", "15", "the", "token", "ttl", "redis", "use"}
	text := func() string {
		var ws []string
		for n := 2 + rnd.IntN(5); n > 0; n-- {
			ws = append(ws, words[rnd.IntN(len(words))])
		}
		return strings.Join(ws, " ")
	}
	kinds := []ItemKind{KindDecision, KindTask}
	for round := 0; round < 300; round++ {
		var removed, added []*Item
		for n := rnd.IntN(30); n > 0; n-- {
			removed = append(removed, &Item{Kind: kinds[rnd.IntN(2)], Text: text()})
		}
		for n := rnd.IntN(30); n > 0; n-- {
			added = append(added, &Item{Kind: kinds[rnd.IntN(2)], Text: text()})
		}
		got, want := pairNearSame(removed, added), pairNearSameSorted(removed, added)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d pairs, want %d", round, len(got), len(want))
		}
		for a, r := range want {
			if got[a] != r {
				t.Fatalf("round %d: added %d paired with %d, want %d", round, a, got[a], r)
			}
		}
	}
}

// similarityFull is itemWords.similarity without its size bound: the
// Jaccard index counted every time.
func similarityFull(p, q itemWords) float64 {
	shared := 0
	for i, j := 0, 0; i < len(p.words) && j < len(q.words); {
		switch a, b := p.words[i], q.words[j]; {
		case a == b:
			shared++
			i++
			j++
		case a < b:
			i++
		default:
			j++
		}
	}
	union := len(p.words) + len(q.words) - shared
	if union > 0 && shared >= 2 {
		if jac := float64(shared) / float64(union); jac >= minItemSimilarity {
			return jac
		}
	}
	if p.sameSubject(q) {
		return minItemSimilarity
	}
	return 0
}
