package eval

import (
	"slices"
	"strings"
	"time"

	"smriti"
)

// ObservedItem is a live item of the state a run ended with.
type ObservedItem struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Status string `json:"status"`
	// Turn is the scenario turn the item's origin names (0: none or not a
	// turn of this scenario).
	Turn int `json:"turn"`
}

// ProbeResult is what one probe step saw.
type ProbeResult struct {
	Step    int      `json:"step"`
	Want    string   `json:"want_mode"`
	Mode    string   `json:"mode"`
	Leaks   []string `json:"leaks"`   // forbidden strings seen
	Missing int      `json:"missing"` // promised items not given
}

// DraftCost is one draft request.
type DraftCost struct {
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
	Wall         time.Duration `json:"wall_ns"`
	Chunks       int           `json:"chunks"`
}

// Observation is what a run of one scenario produced.
type Observation struct {
	Final []ObservedItem `json:"final"`
	// Conflicts are the conflict keys each merge step reported (mapped to
	// scenario keys by text; "?" for one that maps to none).
	Conflicts   map[int][]string `json:"conflicts"`
	Probes      []ProbeResult    `json:"probes"`
	PrimeTokens int              `json:"prime_tokens"`
	Drafts      []DraftCost      `json:"drafts"`
}

// Score is one scenario's measures (or the sum over scenarios).
type Score struct {
	Scenario string `json:"scenario"`
	Hash     string `json:"hash,omitempty"`

	Expected   int     `json:"expected"`   // items of the true final state
	Observed   int     `json:"observed"`   // live items of the final state
	Correct    int     `json:"correct"`    // true items carried with the right text and status
	Lost       int     `json:"lost"`       // true items with no item at all
	Stale      int     `json:"stale"`      // true items present with an old text or status
	Duplicated int     `json:"duplicated"` // extra items of a key beyond the first
	Unexpected int     `json:"unexpected"` // items of no true key: retracted, resolved or invented
	Recall     float64 `json:"recall"`
	Precision  float64 `json:"precision"`

	ConflictsExpected int `json:"conflicts_expected"`
	ConflictsFound    int `json:"conflicts_found"`
	ConflictsMatched  int `json:"conflicts_matched"`

	Probes  int `json:"probes"`
	Leaks   int `json:"leaks"`   // forbidden strings seen, plus probes in the wrong mode
	Missing int `json:"missing"` // promised items not given

	ProvenanceChecked int     `json:"provenance_checked"`
	ProvenanceRight   int     `json:"provenance_right"`
	Provenance        float64 `json:"provenance"`

	PrimeTokens    int           `json:"prime_tokens"`
	Drafts         int           `json:"drafts"`
	DraftTokens    int           `json:"draft_input_tokens"`
	DraftTokensMax int           `json:"draft_input_tokens_max"`
	DraftWall      time.Duration `json:"draft_wall_ns"`

	Err string `json:"error,omitempty"`
}

// textClose is the threshold of word overlap (Jaccard) at which an item's
// text counts as the true text: exact for the oracle, tolerant of a real
// model's rewording, strict enough that "$12" for "$14" is stale.
const textClose = 0.8

// keyMatch is the overlap at which an untagged item is taken for a key.
const keyMatch = 0.5

// ScoreRun measures an observation against a scenario's truth.
func ScoreRun(sc *Scenario, tr *Truth, ob *Observation) Score {
	s := Score{Scenario: sc.Name, Hash: sc.Hash, Expected: len(tr.Final), Observed: len(ob.Final)}
	byKey := map[string][]ObservedItem{}
	for _, it := range ob.Final {
		k := KeyOf(it.Kind, it.Text, tr.All)
		if k == "" {
			s.Unexpected++
			continue
		}
		byKey[k] = append(byKey[k], it)
	}
	truthKeys := map[string]bool{}
	for _, want := range tr.Final {
		truthKeys[want.Key] = true
		got := byKey[want.Key]
		if len(got) == 0 {
			s.Lost++
			continue
		}
		s.Duplicated += len(got) - 1
		best := -1
		for i, it := range got {
			if correct(it, want) {
				best = i
				break
			}
		}
		if best >= 0 {
			s.Correct++
		} else {
			s.Stale++
			best = 0
		}
		s.ProvenanceChecked++
		if got[best].Turn == want.Intro {
			s.ProvenanceRight++
		}
	}
	for k, items := range byKey {
		if !truthKeys[k] {
			s.Unexpected += len(items)
		}
	}
	for step, want := range tr.Conflicts {
		got := ob.Conflicts[step]
		s.ConflictsExpected += len(want)
		s.ConflictsFound += len(got)
		for _, k := range want {
			if slices.Contains(got, k) {
				s.ConflictsMatched++
			}
		}
	}
	for _, p := range ob.Probes {
		s.Probes++
		s.Leaks += len(p.Leaks)
		if p.Mode != p.Want {
			s.Leaks++
		}
		s.Missing += p.Missing
	}
	s.PrimeTokens = ob.PrimeTokens
	for _, d := range ob.Drafts {
		s.Drafts++
		s.DraftTokens += d.InputTokens
		s.DraftTokensMax = max(s.DraftTokensMax, d.InputTokens)
		s.DraftWall += d.Wall
	}
	s.ratios()
	return s
}

func (s *Score) ratios() {
	s.Recall, s.Precision, s.Provenance = ratio(s.Correct, s.Expected), ratio(s.Correct, s.Observed), ratio(s.ProvenanceRight, s.ProvenanceChecked)
	if s.Expected == 0 && s.Observed == 0 {
		s.Recall, s.Precision = 1, 1
	}
}

// ratio is n/d, 0 when d is 0 (an empty state has no precision to claim).
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Total sums scores; its ratios are over the sums (micro averages).
func Total(scores []Score) Score {
	t := Score{Scenario: "overall"}
	for _, s := range scores {
		t.Expected += s.Expected
		t.Observed += s.Observed
		t.Correct += s.Correct
		t.Lost += s.Lost
		t.Stale += s.Stale
		t.Duplicated += s.Duplicated
		t.Unexpected += s.Unexpected
		t.ConflictsExpected += s.ConflictsExpected
		t.ConflictsFound += s.ConflictsFound
		t.ConflictsMatched += s.ConflictsMatched
		t.Probes += s.Probes
		t.Leaks += s.Leaks
		t.Missing += s.Missing
		t.ProvenanceChecked += s.ProvenanceChecked
		t.ProvenanceRight += s.ProvenanceRight
		t.PrimeTokens = max(t.PrimeTokens, s.PrimeTokens)
		t.Drafts += s.Drafts
		t.DraftTokens += s.DraftTokens
		t.DraftTokensMax = max(t.DraftTokensMax, s.DraftTokensMax)
		t.DraftWall += s.DraftWall
		if s.Err != "" && t.Err == "" {
			t.Err = s.Scenario + ": " + s.Err
		}
	}
	t.ratios()
	return t
}

func correct(it ObservedItem, want TruthItem) bool {
	status := it.Status
	if status == "" {
		status = smriti.ItemOpen
	}
	text, _ := SplitTag(it.Text)
	return it.Kind == string(want.Kind) && status == want.Status && overlap(text, want.Text) >= textClose
}

// KeyOf names the true key an item is about: its tag when it carries one,
// else the key of the same kind whose texts (current or earlier) it
// overlaps most, at keyMatch or more; "" for none.
func KeyOf(kind, text string, truth []TruthItem) string {
	body, tag := SplitTag(text)
	if tag != "" {
		return tag
	}
	best, bestKey := keyMatch, ""
	for _, t := range truth {
		if string(t.Kind) != kind {
			continue
		}
		for _, old := range t.Texts {
			if o := overlap(body, old); o >= best {
				best, bestKey = o, t.Key
			}
		}
	}
	return bestKey
}

// overlap is the Jaccard index of two texts' normalised word sets.
func overlap(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(smriti.NormalizeItem(s)) {
		m[w] = true
	}
	return m
}
