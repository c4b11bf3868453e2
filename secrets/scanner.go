package secrets

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// Window bounds around a keyword: gitleaks' assignment-style rules allow up
// to 50 characters of a name before the keyword and a value of up to 150
// after an operator; a window snaps outwards to whitespace so that it never
// cuts a token (a JWT runs to its end however long it is).
const (
	windowBefore = 64
	windowAfter  = 256
	snapLimit    = 256
)

// How a rule's windows are cut, and whether its expression is anchored at
// the window's start.
type mode int

const (
	// around: a window around the keyword, searched anywhere.
	around mode = iota
	// fromName: gitleaks' assignment-shaped rules, whose expressions begin
	// with up to 50 characters of a name before the keyword. Searched
	// unanchored, that prefix keeps up to 50 threads of the matcher alive at
	// every byte of the text, which made them cost about a millisecond per
	// 2 KB each; the window starts where the name containing the keyword
	// starts and the expression is anchored there, which finds the same
	// match.
	fromName
	// fromKeyword: rules whose match begins with their keyword and may span
	// lines (private key blocks, multi-line curl commands): the window runs
	// from the keyword to at most spanLimit bytes on, anchored at the keyword.
	fromKeyword
	// wholeText: other rules whose expression may span lines.
	wholeText
)

const (
	namePrefix = `(?i)[\w.-]{0,50}?(?:`
	nameLimit  = 50
	spanLimit  = 16 << 10
)

// keywordLed are rules whose every match starts with the rule's keyword;
// multiLine are those whose match may run over several lines: how many lines
// after the keyword's (a curl command continued by backslashes: gitleaks'
// curl rules allow 5), or -1 for as far as spanLimit (a private key block);
// userinfo are those that match only a URL with a password (user:pass@).
var (
	keywordLed = map[string]bool{
		"private-key": true, "curl-auth-header": true, "curl-auth-user": true,
		"connection-string-password": true, "url-password": true,
		"jwt": true, "vault-service-token": true,
	}
	multiLine = map[string]int{"private-key": -1, "curl-auth-header": 5, "curl-auth-user": 5}
	userinfo  = map[string]bool{"connection-string-password": true, "url-password": true}
)

// ruleScan is one rule with a detector that holds only that rule, so that
// running it on a window runs nothing else.
type ruleScan struct {
	id       string
	detector *detect.Detector
	mode     mode
	lines    int  // fromKeyword: the lines the match may run on to (see multiLine)
	boundary bool // fromKeyword: the expression starts with \b
	userinfo bool // fromKeyword: the match is a URL with user:password@
	minValue int  // fromName: the shortest value the rule accepts
	// entropyGate (generic-api-key): a value this plain or plainer is
	// dropped by the rule's entropy check, so when the value the rule
	// would capture is certain (see plainValue) the rule is not run.
	entropyGate float64
	// stopwords (generic-api-key's): a finding whose secret holds one is
	// dropped (see splitStopWords); a certain value holding one would be,
	// so the rule is not run on it.
	stopwords *stopWords
}

// minValues are the shortest values of the assignment rules that take any
// token as a value; a keyword followed by a shorter one, or by a name, is not
// looked at.
var minValues = map[string]int{"generic-api-key": 10, "password-assignment": 8}

type scan struct {
	rules []ruleScan
	// trie finds every keyword of every rule in one pass over the lower-cased
	// text; keywordRules[pattern] are the rules that keyword wakes.
	trie         *ahocorasick.Trie
	keywordRules [][]int
	// always are the rules without keywords, run on the whole text.
	always []int
}

// gated turns the shortcuts of entropygate.go on (tests turn them off to
// check they change no finding).
var gated = true

var scanner = sync.OnceValue(func() *scan {
	s, err := build()
	if err != nil {
		panic(fmt.Sprintf("secrets: the rule set does not load: %v", err))
	}
	return s
})

func build() (*scan, error) {
	// gitleaks logs through a package-level zerolog logger writing to
	// stderr; as a library inside a server it must stay quiet.
	logging.Logger = zerolog.Nop()

	cfg, err := translate(config.DefaultConfig)
	if err != nil {
		return nil, fmt.Errorf("default rules: %w", err)
	}
	ours, err := translate(extraRules)
	if err != nil {
		return nil, fmt.Errorf("our rules: %w", err)
	}
	for _, id := range disabledRules {
		if _, ok := cfg.Rules[id]; !ok {
			return nil, fmt.Errorf("disabled rule %q is not in gitleaks' rule set", id)
		}
		delete(cfg.Rules, id)
	}
	for id, r := range ours.Rules {
		cfg.Rules[id] = r
	}

	ids := make([]string, 0, len(cfg.Rules))
	for id := range cfg.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	s := &scan{}
	keywordIndex := map[string]int{}
	var keywords []string
	for _, id := range ids {
		r := cfg.Rules[id]
		if r.Regex == nil || r.Path != nil {
			continue // a rule about file paths; a message has none
		}
		src := r.Regex.String()
		m := around
		switch {
		case strings.HasPrefix(src, namePrefix):
			m = fromName
		case keywordLed[id]:
			m = fromKeyword
		case strings.Contains(src, `\s\S`) || strings.Contains(src, `\n`) || strings.Contains(src, `\r`):
			m = wholeText
		}
		if m == fromName || m == fromKeyword {
			r.Regex = regexp.MustCompile("^(?:" + src + ")")
		}
		var stop *stopWords
		if r.Allowlists, stop, err = splitStopWords(r.Allowlists); err != nil {
			return nil, fmt.Errorf("rule %s: %w", id, err)
		}
		one := config.Config{
			Rules:        map[string]config.Rule{id: r},
			Keywords:     map[string]struct{}{},
			OrderedRules: []string{id},
			Allowlists:   cfg.Allowlists,
		}
		for _, k := range r.Keywords {
			one.Keywords[k] = struct{}{}
		}
		i := len(s.rules)
		rs := ruleScan{
			id: id, detector: detect.NewDetector(one), mode: m,
			lines: multiLine[id], boundary: strings.HasPrefix(src, `\b`), userinfo: userinfo[id], minValue: minValues[id],
			stopwords: stop,
		}
		if id == "generic-api-key" && m == fromName {
			rs.entropyGate = r.Entropy
		}
		s.rules = append(s.rules, rs)
		if len(r.Keywords) == 0 {
			s.always = append(s.always, i)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			ki, ok := keywordIndex[k]
			if !ok {
				ki = len(keywords)
				keywordIndex[k] = ki
				keywords = append(keywords, k)
				s.keywordRules = append(s.keywordRules, nil)
			}
			s.keywordRules[ki] = append(s.keywordRules[ki], i)
		}
	}
	s.trie = ahocorasick.NewTrieBuilder().AddStrings(keywords).Build()
	return s, nil
}

// translate loads a gitleaks configuration from TOML text with a viper
// instance of its own (gitleaks' loader uses viper's global one).
func translate(toml string) (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// span is a byte range of the text a rule runs on.
type span struct{ start, end int }

func (s *scan) find(text string) []Finding {
	lower := asciiLower(text)
	// Windows per rule, in text order; a rule woken twice nearby runs once.
	windows := map[int][]span{}
	s.trie.Walk(lower, func(end, n, pattern int64) bool {
		at := int(end - n + 1)
		for _, ri := range s.keywordRules[pattern] {
			r := &s.rules[ri]
			m := r.mode
			if m == fromName && !assignedAfter(text, int(end)+1, r.minValue) {
				continue
			}
			if r.entropyGate > 0 && gated {
				if v, ok := plainValue(text, int(end)+1); ok && r.dropsValue(v) {
					continue
				}
			}
			if m == fromKeyword && (r.boundary && at > 0 && wordByte(text[at-1]) || r.userinfo && !hasUserinfo(text, at)) {
				continue
			}
			w := cut(text, m, s.rules[ri].lines, at, int(end)+1)
			ws := windows[ri]
			k := len(ws) - 1
			switch {
			case k >= 0 && ws[k] == w:
				// the same window, woken by a second keyword
			case k >= 0 && (m == around || m == wholeText) && w.start <= ws[k].end:
				ws[k].end = max(ws[k].end, w.end)
			default:
				ws = append(ws, w)
			}
			windows[ri] = ws
		}
		return true
	})
	for _, ri := range s.always {
		windows[ri] = []span{{0, len(text)}}
	}
	var out []Finding
	for ri, ws := range windows {
		for _, w := range ws {
			out = s.rules[ri].run(text, w, out)
		}
	}
	return merge(out)
}

// run applies one rule to text[w.start:w.end] and appends what it finds, in
// offsets of the whole text.
func (r ruleScan) run(text string, w span, out []Finding) []Finding {
	frag := text[w.start:w.end]
	for _, f := range r.detector.DetectString(frag) {
		if f.Secret == "" || r.stopwords.in(f.Secret) {
			continue
		}
		start := matchStart(frag, f.StartLine, f.StartColumn)
		i := strings.Index(frag[start:], f.Secret)
		if i < 0 {
			i = strings.Index(frag, f.Secret) // defensive: locate it anywhere in the window
			if i < 0 {
				continue
			}
			start = 0
		}
		s := w.start + start + i
		out = append(out, Finding{Rule: r.id, Fingerprint: Fingerprint(f.Secret), Start: s, End: s + len(f.Secret)})
	}
	return out
}

// matchStart turns gitleaks' line and column of a match back into a byte
// offset: a line's columns count from the newline that ends the line before
// it (from the text's start on the first line).
func matchStart(text string, line, column int) int {
	base := 0
	for n := 0; n < line; n++ {
		i := strings.IndexByte(text[base+min(n, 1):], '\n')
		if i < 0 {
			break
		}
		base += min(n, 1) + i
	}
	return min(max(base+column-1, 0), len(text))
}

// cut is the stretch of text a rule of mode m needs for a keyword at
// text[at:end].
func cut(text string, m mode, lines int, at, end int) span {
	switch m {
	case wholeText:
		return span{0, len(text)}
	case fromKeyword:
		switch {
		case lines < 0:
			return span{at, snapForward(text, min(at+spanLimit, len(text)))}
		case lines > 0:
			stop := end
			for range lines + 1 {
				i := strings.IndexByte(text[stop:], '\n')
				if i < 0 {
					return span{at, len(text)}
				}
				stop += i + 1
			}
			return span{at, stop}
		}
		return span{at, snapForward(text, min(end+windowAfter, len(text)))}
	case fromName:
		start := at
		for lim := max(at-nameLimit, 0); start > lim && nameByte(text[start-1]); start-- {
		}
		return span{start, snapForward(text, min(end+windowAfter, len(text)))}
	}
	// around: some text before the keyword, more after it, snapped outwards
	// to whitespace so that no token is cut.
	start := max(at-windowBefore, 0)
	for lim := max(start-snapLimit, 0); start > lim && !space(text[start-1]); start-- {
	}
	return span{start, snapForward(text, min(end+windowAfter, len(text)))}
}

// assignedAfter says whether an assignment operator follows a keyword that
// ends at text[end], as every assignment-shaped rule requires: after the
// keyword at most 20 characters of [ \t\w.-], at most 3 of [\s'"], then one
// of = > : | , ?; then, for rules that take any token as a value, at most
// five of [`'"\s=] and a value of at least minValue bytes. The bounds here
// are looser (a rule's own keyword may run on past the keyword that woke it);
// a false "yes" only costs a regexp run.
func assignedAfter(text string, end, minValue int) bool {
	for lim := min(end+assignReach, len(text)); end < lim; end++ {
		switch c := text[end]; {
		case c == '=' || c == '>' || c == ':' || c == '|' || c == ',' || c == '?':
			return minValue == 0 || valueAfter(text, end+1, minValue)
		case nameByte(c) || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\'' || c == '"':
		default:
			return false
		}
	}
	return false
}

const assignReach = 48

func valueAfter(text string, at, minValue int) bool {
	for lim := min(at+8, len(text)); at < lim && strings.IndexByte("`'\"=:> \t\r\n\v\f|", text[at]) >= 0; at++ {
	}
	// The value is at most the run up to white space or a quote; a run of
	// letters, '_', '.' and '-' alone is a name, which both rules allow
	// (gitleaks' generic rule and ours: ^[a-zA-Z_.-]+$), whatever prefix of
	// it the rule would take.
	n, word := 0, true
	for ; at+n < len(text) && !space(text[at+n]) && text[at+n] != '"' && text[at+n] != '\'' && text[at+n] != '`'; n++ {
		if c := text[at+n]; word && !(c == '_' || c == '.' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			word = false
		}
		if n+1 >= minValue && !word {
			return true
		}
	}
	return false
}

func wordByte(c byte) bool { return c != '.' && c != '-' && nameByte(c) }

// hasUserinfo says whether the URL whose scheme starts at text[at] has a
// password in it: "://", then before the authority's end ('/', white space
// or a quote) a ':' followed later by an '@'.
func hasUserinfo(text string, at int) bool {
	end := at
	i := strings.Index(text[end:min(end+64, len(text))], "://")
	if i < 0 {
		return false
	}
	colon := false
	for j := end + i + 3; j < len(text); j++ {
		switch c := text[j]; c {
		case ':':
			colon = true
		case '@':
			return colon
		case '/', '"', '\'', '`', ' ', '\t', '\n', '\r':
			return false
		}
	}
	return false
}

func snapForward(text string, stop int) int {
	for stop < len(text) && !space(text[stop]) {
		stop++
	}
	return stop
}

// nameByte: a byte of [\w.-], what gitleaks' assignment rules allow in the
// name before their keyword.
func nameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func space(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in the input (strings.ToLower may change the length of
// non-ASCII text). Every keyword is ASCII.
func asciiLower(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}
