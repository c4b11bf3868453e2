// Package mockderive holds the offline mock provider's heuristics: it
// answers structured-output requests (draft, extract, review, title) with
// JSON derived from the data in the prompt, so tests and users without a key
// see replies that depend on what the model was given.
package mockderive

import (
	"encoding/json"
	"fmt"
	"smriti/intelligence"
	"smriti/internal/textutil"
	"strings"
	"unicode/utf8"

	"smriti"
)

// Reply is what the deterministic offline mock answers to a
// structured-output request (req.Schema set): JSON text valid for that
// schema and derived from the data in the request's messages, so tests can
// tell which turns or which document were used. It reads the data block of
// the newest message that has one (smriti.PromptData) and answers by schema
// name:
//   - draft: cues in the transcript ("we decided to X", "assuming X",
//     "todo: X", questions, capitalised names) become the fields;
//   - extract: the same over a markdown document, plus its headed sections
//     kept verbatim, task lists under "TODO:" lines, and its fenced code
//     blocks, "Files touched" lists and "## Artifacts" sections as artifacts;
//   - draft_changes, extract_changes: the same rules as operations on the
//     base checkpoint's items (add, update, resolve, retract, supersede);
//   - review: smriti.ReviewChecks plus same-subject contradictions,
//     resolved-question, superseded-but-present and unused-entity checks on
//     the quoted checkpoint and its parent;
//   - title: the first words of the first user message.
//
// Lines that read like instructions to a model never become anything. An
// unknown or missing schema gets "{}".
func Reply(req intelligence.CompletionRequest) string {
	if req.Schema == nil {
		return "{}"
	}
	data, _ := intelligence.PromptData(req.Messages)
	var v any
	switch req.Schema.Name {
	case intelligence.SchemaDraft:
		v = deriveDraft(data)
	case intelligence.SchemaExtract:
		v = deriveExtract(data)
	case SchemaDraftChanges:
		v = deriveDraftChanges(data)
	case SchemaExtractChanges:
		v = deriveExtractChanges(data)
	case intelligence.SchemaReview:
		v = deriveReview(data)
	case intelligence.SchemaTitle:
		turns := parseTranscript(data)
		title := ""
		if len(turns) > 0 {
			title = textutil.PhraseTitle(withoutSuspicious(turns[0].text), intelligence.MaxSessionTitleChars)
		}
		v = map[string]string{"title": title}
	default:
		return "{}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// derivedDraft has every field the draft and extract schemas require.
type derivedDraft struct {
	Title         string             `json:"title"`
	Objective     string             `json:"objective"`
	Summary       string             `json:"summary"`
	Decisions     []string           `json:"decisions"`
	Assumptions   []string           `json:"assumptions"`
	Tasks         []derivedTask      `json:"tasks"`
	OpenQuestions []string           `json:"open_questions"`
	Entities      []string           `json:"entities"`
	Artifacts     *[]smriti.Artifact `json:"artifacts,omitempty"`
	seen          map[string]int     `json:"-"`
}

type derivedTask struct {
	ID         string  `json:"id"`
	Text       string  `json:"text"`
	IntentHint *string `json:"intent_hint"`
	BlockedBy  *string `json:"blocked_by"`
	Status     string  `json:"status,omitempty"` // "done" for a ticked "- [x]" task of a document
}

func newDerivedDraft() *derivedDraft {
	return &derivedDraft{Decisions: []string{}, Assumptions: []string{}, Tasks: []derivedTask{},
		OpenQuestions: []string{}, Entities: []string{}, seen: map[string]int{}}
}

type transcriptTurn struct{ role, text string }

// parseTranscript reads a draft prompt's "ROLE: text" paragraphs back.
func parseTranscript(data string) []transcriptTurn {
	var turns []transcriptTurn
	for _, line := range strings.Split(data, "\n") {
		role, text, ok := strings.Cut(line, ": ")
		if ok && (role == "USER" || role == "ASSISTANT") {
			turns = append(turns, transcriptTurn{strings.ToLower(role), text})
			continue
		}
		if len(turns) > 0 {
			turns[len(turns)-1].text += "\n" + line
		}
	}
	for i := range turns {
		turns[i].text = strings.TrimSpace(turns[i].text)
	}
	return turns
}

// deriveDraft drafts from a transcript. Cues count in every turn, but only
// the user's turns name things: a reply's own words ("You said", the mode
// it echoes) are not the conversation's entities. Without an objective cue,
// the first user request is the objective.
func deriveDraft(data string) *derivedDraft {
	d := newDerivedDraft()
	var turns []transcriptTurn
	for _, t := range parseTranscript(data) {
		if t.role == smriti.RoleAssistant && isEcho(firstLine(t.text)) {
			continue // the mock's own reply
		}
		turns = append(turns, t)
	}
	var userTexts []string
	for _, t := range turns {
		if t.role == smriti.RoleUser {
			userTexts = append(userTexts, t.text)
		}
	}
	proper := properNouns(userTexts)
	for _, t := range turns {
		if d.Title == "" && t.role == smriti.RoleUser {
			d.Title = firstWords(t.text, 6, intelligence.MaxTitleChars)
		}
		for _, s := range sentences(t.text) {
			d.sentence(s, proper, t.role == smriti.RoleUser)
		}
	}
	if d.Objective == "" && len(userTexts) > 0 {
		d.Objective = firstRequest(userTexts[0])
	}
	if len(turns) > 0 {
		d.Summary = fmt.Sprintf("Offline mock draft (deterministic rules, no model) of a conversation of %s, starting with: %q. %s",
			plural(len(turns), "message"), firstWords(turns[0].text, 12, 200), d.counts())
	}
	return d
}

func deriveExtract(data string) *derivedDraft {
	d := newDerivedDraft()
	lines, artifacts := scanDoc(data)
	if artifacts == nil {
		artifacts = []smriti.Artifact{}
	}
	d.Artifacts = &artifacts
	var prose []string
	for _, l := range lines {
		if l.heading {
			if d.Title == "" {
				d.Title = l.text
			}
			continue
		}
		trimmed := strings.TrimSpace(l.text)
		if text, done, ok := checkbox(trimmed); ok {
			// A task-list line is a task wherever it is, ticked or not.
			if !intelligence.IsSuspicious(text) {
				d.addTaskStatus(text, done)
			}
			continue
		}
		prose = append(prose, l.text)
		if l.section != "" && trimmed != "" {
			d.sectionLine(l.section, trimmed)
		}
	}
	text := strings.Join(prose, "\n")
	proper := properNouns([]string{text})
	if d.Title == "" {
		d.Title = firstWords(text, 8, intelligence.MaxTitleChars)
	}
	for _, s := range sentences(text) {
		d.sentence(s, proper, true)
	}
	if d.Summary == "" && (strings.TrimSpace(text) != "" || len(d.Tasks) > 0 || len(artifacts) > 0) {
		d.Summary = fmt.Sprintf("Offline mock extract (deterministic rules, no model) of a document titled %q. %s", d.Title, d.counts())
	}
	return d
}

// sectionOf maps a markdown heading to the field whose items it lists.
func sectionOf(heading string) string {
	h := smriti.NormalizeItem(heading)
	h = strings.TrimPrefix(h, "key ")
	h = strings.TrimPrefix(h, "open ")
	switch h {
	case "decisions", "decision":
		return "decisions"
	case "assumptions", "assumption":
		return "assumptions"
	case "tasks", "task", "todo", "todos", "next steps":
		return "tasks"
	case "questions", "question":
		return "open_questions"
	case "entities":
		return "entities"
	case "objective", "goal", "goals":
		return "objective"
	case "summary":
		return "summary"
	}
	return ""
}

// sectionLine takes a line under a recognised heading verbatim.
func (d *derivedDraft) sectionLine(section, line string) {
	item, isBullet := bulletText(line)
	if intelligence.IsSuspicious(item) {
		return
	}
	switch section {
	case "objective":
		if d.Objective == "" {
			d.Objective = item
		}
	case "summary":
		d.Summary = strings.TrimSpace(d.Summary + " " + item)
	case "decisions":
		d.add("decisions", &d.Decisions, item)
	case "assumptions":
		d.add("assumptions", &d.Assumptions, item)
	case "open_questions":
		if rest, ok := cutAnyPrefix(item, questionCues); ok {
			item = upperFirst(rest)
		}
		d.add("open_questions", &d.OpenQuestions, item)
	case "entities":
		for _, e := range strings.Split(item, ",") {
			d.add("entities", &d.Entities, e)
		}
	case "tasks":
		if isBullet || !strings.HasSuffix(item, ":") {
			d.addTask(item)
		}
	}
}

// bulletText strips a list marker ("- ", "* ", "1. ", "- [ ] ").
func bulletText(line string) (string, bool) {
	s := strings.TrimSpace(line)
	bullet := false
	for _, p := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s, bullet = strings.TrimSpace(rest), true
			break
		}
	}
	if !bullet {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
			s, bullet = strings.TrimSpace(s[i+2:]), true
		}
	}
	for _, p := range []string{"[ ] ", "[x] ", "[X] "} {
		s = strings.TrimPrefix(s, p)
	}
	return s, bullet
}

// Cue phrases, lower-case. The text after the cue becomes the item.
var (
	decisionCues   = []string{"we have decided to ", "we've decided to ", "we decided to ", "decided to ", "decision: ", "let's go with ", "let us go with ", "we will ", "we'll "}
	assumptionCues = []string{"assumption: ", "we assume ", "i assume ", "assuming ", "assume "}
	taskCues       = []string{"todo: ", "to do: ", "task: ", "we need to ", "i need to ", "need to ", "needs to "}
	objectiveCues  = []string{"goal: ", "objective: ", "our goal is to ", "the goal is to ", "we want to "}
)

// sentence applies the cues to one sentence; withNames also takes its
// entities.
func (d *derivedDraft) sentence(s string, proper map[string]bool, withNames bool) {
	s, _ = bulletText(s)
	if s == "" || intelligence.IsSuspicious(s) {
		return
	}
	if withNames {
		d.entities(s, proper)
	}
	field, text := cueOf(s, d.Objective == "")
	switch field {
	case "objective":
		d.Objective = text
	case "decisions":
		d.add("decisions", &d.Decisions, text)
	case "assumptions":
		d.add("assumptions", &d.Assumptions, text)
	case "tasks":
		d.addTask(text)
	case "open_questions":
		d.add("open_questions", &d.OpenQuestions, text)
	}
}

// cueOf reads one sentence (list marker already stripped): which field it
// gives (open_questions, objective if objectiveOpen, decisions,
// assumptions, tasks, or "") and the item's text, cue and "Open question:"
// prefix removed.
func cueOf(s string, objectiveOpen bool) (field, text string) {
	if rest, ok := cutAnyPrefix(s, questionCues); ok {
		return "open_questions", upperFirst(rest)
	}
	if strings.HasSuffix(s, "?") {
		return "open_questions", s
	}
	if objectiveOpen {
		for _, cue := range objectiveCues {
			if len(s) >= len(cue) && strings.EqualFold(s[:len(cue)], cue) && trimEnd(s[len(cue):]) != "" {
				return "objective", upperFirst(trimEnd(s[len(cue):]))
			}
		}
	}
	if rest, cue, ok := afterCue(s, decisionCues); ok {
		if strings.HasPrefix(cue, "let") {
			rest = "Go with " + rest
		}
		return "decisions", upperFirst(rest)
	}
	if rest, _, ok := afterCue(s, assumptionCues); ok {
		return "assumptions", upperFirst(rest)
	}
	if rest, _, ok := afterCue(s, taskCues); ok {
		return "tasks", upperFirst(rest)
	}
	return "", ""
}

// firstRequest is the first sentence of text that is not instruction-like,
// as an objective: "Plan a trip to Australia."  → "Plan a trip to Australia".
func firstRequest(text string) string {
	for _, s := range sentences(text) {
		if s, _ = bulletText(s); s != "" && !intelligence.IsSuspicious(s) {
			return upperFirst(trimEnd(s))
		}
	}
	return ""
}

// afterCue finds the first cue (ASCII, lower-case) at a word boundary,
// ignoring case, and returns the rest of the sentence after it.
func afterCue(s string, cues []string) (string, string, bool) {
	for _, cue := range cues {
		for i := 0; i+len(cue) <= len(s); i++ {
			if !strings.EqualFold(s[i:i+len(cue)], cue) {
				continue
			}
			if i > 0 && isWordRune(lastRune(s[:i])) {
				continue
			}
			if rest := trimEnd(s[i+len(cue):]); rest != "" {
				return rest, cue, true
			}
			break
		}
	}
	return "", "", false
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func (d *derivedDraft) add(field string, list *[]string, item string) {
	item = strings.TrimSpace(item)
	k := field + "\x00" + dedupKey(item)
	if item == "" || d.seen[k] > 0 || len(*list) >= intelligence.MaxDraftItems {
		return
	}
	d.seen[k]++
	*list = append(*list, item)
}

func (d *derivedDraft) addTask(text string) { d.addTaskStatus(text, false) }

// addTaskStatus adds a task, marked done if done.
func (d *derivedDraft) addTaskStatus(text string, done bool) {
	text = strings.TrimSpace(text)
	k := "tasks\x00" + dedupKey(text)
	if text == "" || d.seen[k] > 0 || len(d.Tasks) >= intelligence.MaxDraftItems {
		return
	}
	d.seen[k]++
	t := derivedTask{ID: fmt.Sprintf("t%d", len(d.Tasks)+1), Text: text}
	if done {
		t.Status = statusDone
	}
	if hint := intentOf(text); hint != "" {
		t.IntentHint = &hint
	}
	d.Tasks = append(d.Tasks, t)
}

// intentOf guesses a task's intent from its first word.
func intentOf(text string) string {
	first := strings.ToLower(strings.Trim(strings.SplitN(text, " ", 2)[0], ".,:;"))
	switch first {
	case "implement", "build", "add", "write", "create", "fix", "ship", "wire":
		return smriti.IntentImplement
	case "review", "check", "audit":
		return smriti.IntentReview
	case "investigate", "research", "explore", "find", "compare", "evaluate":
		return smriti.IntentInvestigate
	case "document", "docs":
		return smriti.IntentDocs
	case "test", "verify":
		return smriti.IntentTest
	}
	return ""
}

// entities adds runs of capitalised words of s: "Great Barrier Reef". A
// sentence's first word counts only if it is capitalised elsewhere too
// (proper), since every sentence starts with a capital.
func (d *derivedDraft) entities(s string, proper map[string]bool) {
	words := wordsOf(s)
	var run []string
	runInitial := false
	flush := func() {
		// A lone sentence-initial word ("Great.") that is only known as part
		// of a longer name is not a name by itself.
		if len(run) == 1 && runInitial && !proper[" "+run[0]] {
			run = nil
		}
		if len(run) > 0 {
			name := strings.Join(run, " ")
			if len([]rune(name)) >= 2 && len(d.Entities) < 20 {
				d.add("entities", &d.Entities, name)
			}
		}
		run = nil
	}
	for i, w := range words {
		switch {
		case !capitalised(w.text) || stopEntity[w.text]:
			flush()
		case w.initial && !proper[w.text]:
			flush()
		default:
			if i > 0 && !words[i-1].adjacent(w) {
				flush()
			}
			if len(run) == 0 {
				runInitial = w.initial
			}
			run = append(run, w.text)
		}
	}
	flush()
}
