package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// A scenario is a txtar file with two parts:
//
//	-- scenario --
//	name: fork-merge
//	about: a fork with divergent edits merged back with one known conflict
//	-- script --
//	session s1
//	say s1 [decide d:pricing] Pricing is per-seat at $12
//	save s1 as c1
//	...
//
// The script is one step a line ('#' starts a comment):
//
//	session S [nospace]            a new session in the scenario's space (nospace: none)
//	say S TEXT                     S sends TEXT (one user turn; the reply is the chat provider's)
//	save S [as L]                  draft from S and save the draft as a checkpoint (named L)
//	draft S                        draft from S and keep the draft for a later commit
//	commit S [as L] [expect K,…] [resolve ours|theirs]
//	                               save S's kept draft; the server rebases it onto a head that
//	                               moved, or answers 409 with the conflicts K, settled as resolve
//	                               says (ours: the head's value, theirs: this save's)
//	fork S from L [branch B]       a fork session S from checkpoint L on branch B
//	mount S L                      mount checkpoint L into session S
//	merge B into main [expect K,…] [resolve ours|theirs] [as L]
//	                               merge branch B's head into main; K are the conflicts expected
//	probe S MODE [forbid W,…] [sees L] [draft]
//	                               what S's model would be given: its mode must be MODE, no W may
//	                               appear, every item of checkpoint L must; with draft, a draft
//	                               from S (not saved) must not hold any W either
//	repeat N: STEP; STEP …          the steps N times, {i} replaced by 1…N
//
// The ground truth is the markers of the turns (see ParseMarkers) replayed
// along the script (Replay).

// Step is one line of a script.
type Step struct {
	Line    int // in the script part, 1-based
	Verb    string
	Session string
	Text    string // say
	Label   string // save/commit "as", fork/mount source, merge "as"
	Branch  string // fork, merge
	Expect  []string
	Resolve string
	Mode    string
	Forbid  []string
	Sees    string
	Draft   bool
	NoSpace bool
	Turn    int // say: the turn's number in the scenario, 1-based
}

// Scenario is a parsed scenario file.
type Scenario struct {
	Name  string
	About string
	File  string
	Hash  string // first 12 hex digits of the file's SHA-256
	Steps []Step
	Turns int // how many says
	Saves int // how many checkpoints the script saves (save, commit, merge)
}

// LoadDir parses every *.txtar file of dir, sorted by name.
func LoadDir(dir string) ([]*Scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no scenarios (*.txtar) in %s", dir)
	}
	slices.Sort(paths)
	var out []*Scenario
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(filepath.Base(p), data)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Parse reads one scenario file.
func Parse(file string, data []byte) (*Scenario, error) {
	sum := sha256.Sum256(data)
	sc := &Scenario{File: file, Hash: hex.EncodeToString(sum[:])[:12]}
	ar := txtar.Parse(data)
	var script string
	for _, f := range ar.Files {
		switch f.Name {
		case "scenario":
			for _, line := range strings.Split(string(f.Data), "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				switch strings.TrimSpace(k) {
				case "name":
					sc.Name = strings.TrimSpace(v)
				case "about":
					sc.About = strings.TrimSpace(v)
				}
			}
		case "script":
			script = string(f.Data)
		}
	}
	if sc.Name == "" {
		return nil, fmt.Errorf("%s: the scenario part has no name", file)
	}
	for i, raw := range strings.Split(script, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		steps, err := parseLine(line, i+1)
		if err != nil {
			return nil, fmt.Errorf("%s: script line %d: %w", file, i+1, err)
		}
		sc.Steps = append(sc.Steps, steps...)
	}
	if len(sc.Steps) == 0 {
		return nil, fmt.Errorf("%s: the script is empty", file)
	}
	for i := range sc.Steps {
		switch sc.Steps[i].Verb {
		case "say":
			sc.Turns++
			sc.Steps[i].Turn = sc.Turns
		case "save", "commit", "merge":
			sc.Saves++
		}
	}
	if _, err := Replay(sc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return sc, nil
}

func parseLine(line string, n int) ([]Step, error) {
	if rest, ok := strings.CutPrefix(line, "repeat "); ok {
		count, body, ok := strings.Cut(rest, ":")
		times, err := strconv.Atoi(strings.TrimSpace(count))
		if !ok || err != nil || times < 1 || times > 1000 {
			return nil, fmt.Errorf("repeat wants 'repeat N: STEP; STEP' with 1 <= N <= 1000")
		}
		var out []Step
		for i := 1; i <= times; i++ {
			for _, part := range strings.Split(body, ";") {
				part = strings.TrimSpace(strings.ReplaceAll(part, "{i}", strconv.Itoa(i)))
				if part == "" {
					continue
				}
				st, err := parseStep(part, n)
				if err != nil {
					return nil, err
				}
				out = append(out, st)
			}
		}
		return out, nil
	}
	st, err := parseStep(line, n)
	return []Step{st}, err
}

func parseStep(line string, n int) (Step, error) {
	f := strings.Fields(line)
	st := Step{Line: n, Verb: f[0]}
	need := func(k int, usage string) error {
		if len(f) < k {
			return fmt.Errorf("%s wants: %s", f[0], usage)
		}
		return nil
	}
	opts := func(from int, allowed ...string) error { return stepOptions(&st, f, from, allowed...) }
	switch st.Verb {
	case "session":
		if err := need(2, "session S [nospace]"); err != nil {
			return st, err
		}
		st.Session = f[1]
		return st, opts(2, "nospace")
	case "say":
		if err := need(3, "say S TEXT"); err != nil {
			return st, err
		}
		st.Session = f[1]
		_, after, _ := strings.Cut(line, " "+f[1]+" ")
		st.Text = strings.TrimSpace(after)
		return st, nil
	case "save":
		if err := need(2, "save S [as L]"); err != nil {
			return st, err
		}
		st.Session = f[1]
		return st, opts(2, "as")
	case "commit":
		if err := need(2, "commit S [as L] [expect K,…] [resolve ours|theirs]"); err != nil {
			return st, err
		}
		st.Session = f[1]
		if err := opts(2, "as", "expect", "resolve"); err != nil {
			return st, err
		}
		if len(st.Expect) > 0 && st.Resolve == "" {
			return st, fmt.Errorf("a commit that expects conflicts needs resolve ours|theirs")
		}
		return st, nil
	case "draft":
		if err := need(2, "draft S"); err != nil {
			return st, err
		}
		st.Session = f[1]
		return st, opts(2)
	case "fork":
		if err := need(4, "fork S from L [branch B]"); err != nil {
			return st, err
		}
		if f[2] != "from" {
			return st, fmt.Errorf("fork wants: fork S from L [branch B]")
		}
		st.Session, st.Label = f[1], f[3]
		if err := opts(4, "branch"); err != nil {
			return st, err
		}
		if st.Branch == "" {
			st.Branch = st.Session
		}
		return st, nil
	case "mount":
		if err := need(3, "mount S L"); err != nil {
			return st, err
		}
		st.Session, st.Label = f[1], f[2]
		return st, nil
	case "merge":
		if err := need(4, "merge B into main [expect K,…] [resolve ours|theirs] [as L]"); err != nil {
			return st, err
		}
		if f[2] != "into" || f[3] != "main" {
			return st, fmt.Errorf("merge merges into main: merge B into main")
		}
		st.Branch = f[1]
		if err := opts(4, "expect", "resolve", "as"); err != nil {
			return st, err
		}
		if len(st.Expect) > 0 && st.Resolve == "" {
			return st, fmt.Errorf("a merge that expects conflicts needs resolve ours|theirs")
		}
		return st, nil
	case "probe":
		if err := need(3, "probe S MODE [forbid W,…] [sees L] [draft]"); err != nil {
			return st, err
		}
		st.Session, st.Mode = f[1], f[2]
		if !slices.Contains([]string{"FRESH", "HEAD", "MOUNTED", "FORKED"}, st.Mode) {
			return st, fmt.Errorf("probe mode is FRESH, HEAD, MOUNTED or FORKED, not %q", st.Mode)
		}
		return st, opts(3, "forbid", "sees", "draft")
	}
	return st, fmt.Errorf("unknown step %q", st.Verb)
}

// stepOptions reads "key value" pairs (and bare flags) of a step's line
// f after position from into st.
func stepOptions(st *Step, f []string, from int, allowed ...string) error {
	for i := from; i < len(f); i++ {
		k := f[i]
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unknown option %q (allowed: %s)", k, strings.Join(allowed, ", "))
		}
		if k == "draft" || k == "nospace" {
			st.Draft = st.Draft || k == "draft"
			st.NoSpace = st.NoSpace || k == "nospace"
			continue
		}
		if i+1 >= len(f) {
			return fmt.Errorf("option %q wants a value", k)
		}
		v := f[i+1]
		i++
		switch k {
		case "as":
			st.Label = v
		case "branch":
			st.Branch = v
		case "expect":
			st.Expect = strings.Split(v, ",")
		case "resolve":
			if v != "ours" && v != "theirs" {
				return fmt.Errorf("resolve is ours or theirs, not %q", v)
			}
			st.Resolve = v
		case "forbid":
			st.Forbid = strings.Split(v, ",")
		case "sees":
			st.Sees = v
		}
	}
	return nil
}
