package intelligence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"smriti"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Caps on what a model may put in a draft. Beyond them text is cut and lists
// are shortened, so a runaway reply cannot produce a checkpoint nobody can
// read (or store).
const (
	MaxDraftItems     = 50
	MaxTitleChars     = 120
	maxSummaryChars   = 4000
	maxArtifacts      = 20
	maxArtifactChars  = 100000
	maxArtifactLabel  = 200
	maxArtifactIDType = 64
	// MaxSessionTitleChars caps a generated session title.
	MaxSessionTitleChars = 60
)

// ParseDraft reads a model's draft (or, withArtifacts, extract) reply:
// tolerant of fences and prose (extractJSONObject), strict about types,
// lenient where no meaning is lost.
//
// Missing or null fields are empty. A single string where a list was
// expected is a one-item list; numbers and booleans in a list of strings
// become strings; an object in a list of strings is accepted for its "text"
// or "description". Anything else of the wrong type is an error naming the
// field (`"decisions" must be an array of strings`), meant for the retry
// prompt. Text is trimmed and cut to the caps (MaxItemChars per item,
// MaxTitleChars, maxSummaryChars, MaxDraftItems per list, maxArtifacts of
// maxArtifactChars), blank items dropped, duplicates (NormalizeItem) dropped,
// tasks normalised (normalizeTasks). Artifacts without an id get "a1", "a2",
// …; without a type "text"; without content they are dropped. Without
// withArtifacts an "artifacts" field is ignored.
//
// The draft is then sanitised (sanitizeDraft): instruction-like items are
// dropped with a warning.
func ParseDraft(text string, withArtifacts bool) (*Draft, error) {
	m, err := decodeObject(text)
	if err != nil {
		return nil, err
	}
	d := &Draft{Warnings: []string{}, Artifacts: []smriti.Artifact{}}
	if d.Title, err = scalarField(m, "title", MaxTitleChars); err != nil {
		return nil, err
	}
	if d.Objective, err = scalarField(m, "objective", smriti.MaxItemChars); err != nil {
		return nil, err
	}
	if d.Summary, err = scalarField(m, "summary", maxSummaryChars); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{
		{"decisions", &d.Decisions}, {"assumptions", &d.Assumptions},
		{"open_questions", &d.OpenQuestions}, {"entities", &d.Entities},
	} {
		if *f.dst, err = stringList(m, f.name); err != nil {
			return nil, err
		}
	}
	if d.Tasks, err = taskList(m); err != nil {
		return nil, err
	}
	if withArtifacts {
		if d.Artifacts, err = artifactList(m); err != nil {
			return nil, err
		}
	}
	sanitizeDraft(d)
	return d, nil
}

// ParseReview reads a model's review reply. Issues of a type other than the
// five issueTypes, or without a description, are dropped (a model inventing
// categories is not an error worth a retry); at most MaxReviewIssues issues
// and MaxReviewSuggestions suggestions are kept. Wrong types for the two
// fields themselves are errors naming them.
func ParseReview(text string) (*Review, error) {
	m, err := decodeObject(text)
	if err != nil {
		return nil, err
	}
	r := &Review{Issues: []ReviewIssue{}, Suggestions: []string{}}
	var items []any
	switch v := m["issues"].(type) {
	case nil:
	case []any:
		items = v
	case map[string]any:
		items = []any{v}
	default:
		return nil, fmt.Errorf(`"issues" must be an array of {"type", "description"} objects`)
	}
	for _, it := range items {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := o["type"].(string)
		desc, _ := o["description"].(string)
		typ, desc = strings.ToLower(strings.TrimSpace(typ)), strings.TrimSpace(desc)
		if !validIssueType(typ) || desc == "" || len(r.Issues) == MaxReviewIssues {
			continue
		}
		r.Issues = append(r.Issues, ReviewIssue{Type: typ, Description: capText(desc, smriti.MaxItemChars)})
	}
	if r.Suggestions, err = stringList(m, "suggestions"); err != nil {
		return nil, err
	}
	if len(r.Suggestions) > MaxReviewSuggestions {
		r.Suggestions = r.Suggestions[:MaxReviewSuggestions]
	}
	return r, nil
}

// parseTitle reads a generated session title: a {"title": …} object, or
// failing that the first non-empty line of plain text; surrounding quotes and
// a "Title:" prefix are removed and the result cut to MaxSessionTitleChars.
// "" when there is nothing usable.
func parseTitle(text string) string {
	title := ""
	if m, err := decodeObject(text); err == nil {
		title, _ = m["title"].(string)
	} else {
		for _, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "```") {
				title = line
				break
			}
		}
	}
	title = strings.TrimSpace(title)
	if rest, ok := cutPrefixFold(title, "title:"); ok {
		title = rest
	}
	title = strings.TrimSpace(strings.Trim(strings.TrimSpace(title), `"'`+"`“”‘’"))
	return capText(strings.Join(strings.Fields(title), " "), MaxSessionTitleChars)
}

func validIssueType(t string) bool {
	for _, v := range issueTypes {
		if t == v {
			return true
		}
	}
	return false
}

func decodeObject(text string) (map[string]any, error) {
	obj, err := extractJSONObject(text)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the reply is not valid JSON: %v", err)
	}
	return m, nil
}

// capText trims s and cuts it to at most n characters, the last being "…"
// when something was cut.
func capText(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func scalarField(m map[string]any, name string, limit int) (string, error) {
	switch v := m[name].(type) {
	case nil:
		return "", nil
	case string:
		return capText(v, limit), nil
	case json.Number:
		return v.String(), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("%q must be a string", name)
}

func stringList(m map[string]any, name string) ([]string, error) {
	var raw []any
	switch v := m[name].(type) {
	case nil:
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, fmt.Errorf("%q must be an array of strings", name)
	}
	var items []string
	for _, it := range raw {
		switch v := it.(type) {
		case nil:
		case string:
			items = append(items, v)
		case json.Number:
			items = append(items, v.String())
		case bool:
			items = append(items, strconv.FormatBool(v))
		case map[string]any:
			s, ok := v["text"].(string)
			if !ok {
				s, ok = v["description"].(string)
			}
			if !ok {
				return nil, fmt.Errorf("%q must be an array of strings", name)
			}
			items = append(items, s)
		default:
			return nil, fmt.Errorf("%q must be an array of strings", name)
		}
	}
	return cleanList(items), nil
}

// cleanList trims, caps and de-duplicates items; never nil.
func cleanList(items []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range items {
		s = capText(s, smriti.MaxItemChars)
		if s == "" || seen[smriti.ItemKey(s)] {
			continue
		}
		seen[smriti.ItemKey(s)] = true
		if out = append(out, s); len(out) == MaxDraftItems {
			break
		}
	}
	return out
}

func taskList(m map[string]any) ([]smriti.Task, error) {
	var raw []any
	switch v := m["tasks"].(type) {
	case nil:
	case string, map[string]any:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, fmt.Errorf(`"tasks" must be an array of strings or {"text", …} objects`)
	}
	for i, it := range raw {
		switch v := it.(type) {
		case nil, string:
		case map[string]any:
			if _, ok := v["text"].(string); !ok {
				return nil, fmt.Errorf(`"tasks[%d].text" must be a string`, i)
			}
		default:
			return nil, fmt.Errorf(`"tasks" must be an array of strings or {"text", …} objects`)
		}
	}
	out := []smriti.Task{}
	seen := map[string]bool{}
	for _, t := range smriti.NormalizeTasks(raw) {
		t.Text = capText(t.Text, smriti.MaxItemChars)
		t.ID = capText(t.ID, maxArtifactIDType)
		for i, b := range t.BlockedBy {
			t.BlockedBy[i] = capText(b, smriti.MaxItemChars)
		}
		if seen[smriti.ItemKey(t.Text)] {
			continue
		}
		seen[smriti.ItemKey(t.Text)] = true
		if out = append(out, t); len(out) == MaxDraftItems {
			break
		}
	}
	return out, nil
}

func artifactList(m map[string]any) ([]smriti.Artifact, error) {
	var raw []any
	switch v := m["artifacts"].(type) {
	case nil:
	case map[string]any:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, fmt.Errorf(`"artifacts" must be an array of {"id", "type", "label", "content"} objects`)
	}
	out := []smriti.Artifact{}
	ids := map[string]bool{}
	for i, it := range raw {
		o, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`"artifacts" must be an array of {"id", "type", "label", "content"} objects`)
		}
		var a smriti.Artifact
		for _, f := range []struct {
			key   string
			dst   *string
			limit int
		}{
			{"id", &a.ID, maxArtifactIDType}, {"type", &a.Type, maxArtifactIDType},
			{"label", &a.Label, maxArtifactLabel}, {"content", &a.Content, maxArtifactChars},
		} {
			switch v := o[f.key].(type) {
			case nil:
			case string:
				*f.dst = v
				if f.key != "content" {
					*f.dst = capText(v, f.limit)
				} else if utf8.RuneCountInString(v) > f.limit {
					*f.dst = string([]rune(v)[:f.limit-len([]rune(truncationMarker))]) + truncationMarker
				}
			default:
				return nil, fmt.Errorf(`"artifacts[%d].%s" must be a string`, i, f.key)
			}
		}
		if strings.TrimSpace(a.Content) == "" || len(out) == maxArtifacts {
			continue
		}
		if a.Type == "" {
			a.Type = "text"
		}
		if a.ID == "" || ids[a.ID] {
			a.ID = ""
			for n := len(out) + 1; a.ID == "" || ids[a.ID]; n++ {
				a.ID = "a" + strconv.Itoa(n)
			}
		}
		ids[a.ID] = true
		out = append(out, a)
	}
	return out, nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
