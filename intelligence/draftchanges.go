package intelligence

import (
	"encoding/json"
	"fmt"
	"smriti"
	"strings"
	"sync"
)

// Drafting as a change list, so that state accumulates: a draft keeps
// everything its base held unless the turns change it. The model gets
// its base checkpoint's items, with their ids, and the allowed turns (or a
// document) as one JSON data block, and answers operations on those items;
// ComposeDraft turns them into the proposed full state.

// Schema names of the change-list prompts; the offline mock answers by name.
const (
	SchemaDraftChanges   = "draft_changes"
	SchemaExtractChanges = "extract_changes"
)

// maxDraftOps bounds how many operations of a reply are applied.
const maxDraftOps = 200

// ChangeData is the data block of a change-list prompt.
type ChangeData struct {
	Base     ChangeBase   `json:"base"`
	Turns    []ChangeTurn `json:"turns"`
	Document *string      `json:"document,omitempty"`
}

// ChangeBase is the base checkpoint as a prompt quotes it: its scalars and
// its live items (CheckpointID nil when there is no base).
type ChangeBase struct {
	CheckpointID *smriti.ID   `json:"checkpoint_id"`
	Title        string       `json:"title"`
	Objective    string       `json:"objective"`
	Summary      string       `json:"summary"`
	Items        []ChangeItem `json:"items"`
}

// ChangeItem is one live item of the base.
type ChangeItem struct {
	ID     string          `json:"id"`
	Kind   smriti.ItemKind `json:"kind"`
	Text   string          `json:"text"`
	Status string          `json:"status"`
}

// ChangeTurn is one turn of the transcript a draft reads.
type ChangeTurn struct {
	Seq     int64  `json:"seq"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChangeReply is a parsed change-list answer. Objective and Summary nil keep
// the base's.
type ChangeReply struct {
	Title     string
	Objective *string
	Summary   *string
	Ops       []smriti.DraftOp
	Artifacts []smriti.Artifact
	Warnings  []string
}

// add appends a later reply of the same draft: its operations after
// these, its title, objective and summary (when it has them) over these.
func (r *ChangeReply) add(later *ChangeReply) {
	if later.Title != "" {
		r.Title = later.Title
	}
	if later.Objective != nil {
		r.Objective = later.Objective
	}
	if later.Summary != nil {
		r.Summary = later.Summary
	}
	r.Ops = append(r.Ops, later.Ops...)
	r.Artifacts = mergeArtifacts(r.Artifacts, later.Artifacts)
	r.Warnings = append(r.Warnings, later.Warnings...)
}

// changeBaseOf quotes a base checkpoint (nil: none) and its items.
func changeBaseOf(base *smriti.Checkpoint, items []smriti.Item) ChangeBase {
	b := ChangeBase{Items: []ChangeItem{}}
	if base == nil {
		return b
	}
	id := base.ID
	b.CheckpointID, b.Title, b.Objective, b.Summary = &id, base.Message, base.Objective, base.Summary
	for _, it := range items {
		if it.Live() {
			b.Items = append(b.Items, ChangeItem{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.StatusOrOpen()})
		}
	}
	return b
}

const changeRules = `Answer with the changes to the base's items, never a fresh summary: every base item you do not touch is kept as it is.
Operations (every operation object has all of op, kind, id, text, by, reason, from_seq, to_seq, quote; null where unused):
- {"op": "add", "kind": "decision"|"assumption"|"task"|"open_question"|"entity", "text"}: something new. Never re-add a base item.
- {"op": "update", "id", "text"}: the same item, now worded or valued differently (a changed number, a refined decision).
- {"op": "resolve", "id", "by"}: a task done or an open question answered. A task done that the base does not have: {"op": "resolve", "kind": "task", "text", "by"} (id null).
- {"op": "retract", "id", "reason"}: an item no longer true or wanted.
- {"op": "supersede", "id", "text"}: an item replaced by a different one.
Each operation names the turns it came from ("from_seq", "to_seq": turn seq numbers) and a short "quote" (at most 200 characters) of the words that support it.
Kinds: decisions are choices explicitly made (not options considered); assumptions are things taken for granted; tasks are work to do; open questions are questions raised and not answered; entities are proper nouns and key technical terms.
"title": a 3–6 word title for the new checkpoint. "objective" and "summary": the new text, or null to keep the base's; the summary (2–4 sentences) describes the whole state, not only the changes.
Record only what the material explicitly says; invent nothing.`

func changeSchema(withArtifacts bool) map[string]any {
	kinds := []any{string(smriti.KindDecision), string(smriti.KindAssumption), string(smriti.KindTask), string(smriti.KindQuestion), string(smriti.KindEntity)}
	integer := map[string]any{"type": "integer"}
	props := map[string]any{
		"title":     str(),
		"objective": nullable(str()),
		"summary":   nullable(str()),
		"operations": array(object(map[string]any{
			"op":       map[string]any{"type": "string", "enum": []string{smriti.OpAdd, smriti.OpUpdate, smriti.OpResolve, smriti.OpRetract, smriti.OpSupersede}},
			"kind":     nullable(map[string]any{"type": "string", "enum": kinds}),
			"id":       nullable(str()),
			"text":     nullable(str()),
			"by":       nullable(str()),
			"reason":   nullable(str()),
			"from_seq": nullable(integer),
			"to_seq":   nullable(integer),
			"quote":    nullable(str()),
		})),
	}
	if withArtifacts {
		props["artifacts"] = array(object(map[string]any{
			"id": str(), "type": str(), "label": str(), "content": str(),
		}))
	}
	s := object(props)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	return s
}

// Change-list schemas, built on first use.
var (
	DraftChangesSchema = sync.OnceValue(func() *JSONSchema {
		return &JSONSchema{Name: SchemaDraftChanges, Schema: changeSchema(false)}
	})
	ExtractChangesSchema = sync.OnceValue(func() *JSONSchema {
		return &JSONSchema{Name: SchemaExtractChanges, Schema: changeSchema(true)}
	})
)

// changeDataBlock renders data as the prompt's data block. json.Marshal
// escapes "<" and ">", so the data can never contain a delimiter.
func changeDataBlock(d ChangeData) string {
	if d.Turns == nil {
		d.Turns = []ChangeTurn{}
	}
	return dataBlock(compactLines(d))
}

// compactLines encodes v as JSON with each element of its arrays of
// objects on a line of its own and no other whitespace: as readable to a
// model as indented JSON, at about half the tokens (indentation costs a
// token or more per line, and a state of hundreds of items has thousands
// of lines).
func compactLines(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	var out strings.Builder
	out.Grow(len(b) + len(b)/16)
	var open []byte // the containers the encoder is in, innermost last
	var str jsonStrings
	for _, c := range b {
		out.WriteByte(c)
		if !str.outside(c) {
			continue
		}
		switch {
		case c == '[' || c == '{':
			open = append(open, c)
		case c == ']' || c == '}':
			open = open[:len(open)-1]
		case c == ',' && (open[len(open)-1] == '[' || len(open) <= 2):
			// Between array elements and between the fields of the top
			// two objects: a line each.
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// DraftChangesPrompt asks for the changes the turns (oldest first; system
// turns skipped) make to the base. The base is the checkpoint the session's
// context stands on — exactly what the session's model was given — so
// nothing beyond the isolation boundary reaches this prompt.
func DraftChangesPrompt(base *smriti.Checkpoint, items []smriti.Item, turns []*smriti.Turn) []Message {
	d := ChangeData{Base: changeBaseOf(base, items)}
	for _, t := range turns {
		if t.Role != smriti.RoleSystem {
			d.Turns = append(d.Turns, ChangeTurn{Seq: t.Seq, Role: t.Role, Content: t.Content})
		}
	}
	return []Message{
		{Role: smriti.RoleSystem, Content: "You keep the reasoning state of a line of work. The data holds the current state (\"base\": " +
			"its items, each with an id) and the conversation since (\"turns\"). Say how the conversation changes the state.\n\n" +
			dataRule + "\n\n" + changeRules + "\n\n" + jsonRule},
		{Role: smriti.RoleUser, Content: "Give the changes this conversation makes to the base state.\n\n" + changeDataBlock(d)},
	}
}

// ExtractChangesPrompt asks for the changes a markdown document makes to the
// base (nil: a first checkpoint, every item an add), its code blocks as
// artifacts.
func ExtractChangesPrompt(base *smriti.Checkpoint, items []smriti.Item, markdown string) []Message {
	d := ChangeData{Base: changeBaseOf(base, items), Document: &markdown}
	return []Message{
		{Role: smriti.RoleSystem, Content: "You keep the reasoning state of a line of work. The data holds the current state (\"base\": " +
			"its items, each with an id) and a document (\"document\"). Say how the document changes the state. " +
			"If the document has sections named like the kinds (Decisions, Assumptions, Tasks, Open Questions, …) keep their items verbatim. " +
			"A task-list item keeps its checkbox state: \"- [x] …\" resolves the matching base task (or adds it, done), \"- [ ] …\" is an open task. " +
			"Operations on a document have null from_seq and to_seq; their quote is the line.\n\n" +
			dataRule + "\n\n" + changeRules + "\n" +
			`- "artifacts": fenced code blocks, JSON or other structured content, verbatim: {"id": short alphanumeric, "type": the fence language or "text"/"markdown", "label": a short description, "content"}.` +
			"\n\n" + jsonRule},
		{Role: smriti.RoleUser, Content: "Give the changes this document makes to the base state.\n\n" + changeDataBlock(d)},
	}
}

// ParseChangeReply reads a change-list answer: tolerant of fences and prose,
// strict about types (an error names the field, for the retry prompt). A
// reply in the classic draft shape (decisions, tasks, … lists and no
// "operations") is read as adds, so a model that ignores the instructions
// still adds to the state rather than replacing it. Texts are trimmed and
// cut to the caps; instruction-like texts are dropped with a warning.
func ParseChangeReply(text string, withArtifacts bool) (*ChangeReply, error) {
	m, err := decodeObject(text)
	if err != nil {
		return nil, err
	}
	r := &ChangeReply{Warnings: []string{}, Ops: []smriti.DraftOp{}, Artifacts: []smriti.Artifact{}}
	if r.Title, err = scalarField(m, "title", MaxTitleChars); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name  string
		limit int
		dst   **string
	}{{"objective", smriti.MaxItemChars, &r.Objective}, {"summary", maxSummaryChars, &r.Summary}} {
		if v, ok := m[f.name]; ok && v != nil {
			s, err := scalarField(m, f.name, f.limit)
			if err != nil {
				return nil, err
			}
			*f.dst = &s
		}
	}
	raw, hasOps := m["operations"]
	switch {
	case hasOps && raw != nil:
		list, ok := raw.([]any)
		if !ok {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, `"operations" must be an array of objects`)
		}
		for i, v := range list {
			if len(r.Ops) == maxDraftOps {
				r.Warnings = append(r.Warnings, fmt.Sprintf("Only the first %d operations were applied.", maxDraftOps))
				break
			}
			op, err := parseOp(v, i)
			if err != nil {
				return nil, err
			}
			if snip, bad := suspiciousSnippet(op.Text + " " + op.Reason + " " + op.By); bad {
				r.Warnings = append(r.Warnings, fmt.Sprintf("Dropped an operation whose text reads like an instruction to a model: %q", snip))
				continue
			}
			r.Ops = append(r.Ops, op)
		}
	default:
		d, err := ParseDraft(text, false)
		if err != nil {
			return nil, err
		}
		r.Warnings = append(r.Warnings, d.Warnings...)
		add := func(kind smriti.ItemKind, texts []string) {
			for _, t := range texts {
				r.Ops = append(r.Ops, smriti.DraftOp{Op: smriti.OpAdd, Kind: string(kind), Text: t})
			}
		}
		add(smriti.KindDecision, d.Decisions)
		add(smriti.KindAssumption, d.Assumptions)
		for _, t := range d.Tasks {
			r.Ops = append(r.Ops, smriti.DraftOp{Op: smriti.OpAdd, Kind: string(smriti.KindTask), Text: t.Text, Task: &t})
		}
		add(smriti.KindQuestion, d.OpenQuestions)
		add(smriti.KindEntity, d.Entities)
		if _, ok := m["objective"]; ok && d.Objective != "" {
			r.Objective = &d.Objective
		}
		if _, ok := m["summary"]; ok && d.Summary != "" {
			r.Summary = &d.Summary
		}
	}
	if withArtifacts {
		if r.Artifacts, err = artifactList(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// parseOp reads operation i of a reply.
func parseOp(v any, i int) (smriti.DraftOp, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return smriti.DraftOp{}, smriti.Errorf(smriti.EUNPROCESSABLE, `"operations"[%d] must be an object`, i)
	}
	var op smriti.DraftOp
	str := func(name string, limit int) (string, error) {
		x, ok := o[name]
		if !ok || x == nil {
			return "", nil
		}
		s, ok := x.(string)
		if !ok {
			return "", smriti.Errorf(smriti.EUNPROCESSABLE, `"operations"[%d].%s must be a string or null`, i, name)
		}
		return capText(strings.TrimSpace(s), limit), nil
	}
	seq := func(name string) (*int64, error) {
		x, ok := o[name]
		if !ok || x == nil {
			return nil, nil
		}
		var n int64
		switch v := x.(type) {
		case json.Number:
			f, err := v.Float64()
			if err != nil {
				return nil, smriti.Errorf(smriti.EUNPROCESSABLE, `"operations"[%d].%s must be an integer or null`, i, name)
			}
			n = int64(f)
		case float64:
			n = int64(v)
		default:
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, `"operations"[%d].%s must be an integer or null`, i, name)
		}
		return &n, nil
	}
	var err error
	if op.Op, err = str("op", 20); err != nil {
		return op, err
	}
	if op.Op == "" {
		return op, smriti.Errorf(smriti.EUNPROCESSABLE, `"operations"[%d].op is required`, i)
	}
	for _, f := range []struct {
		name  string
		limit int
		dst   *string
	}{{"kind", 30, &op.Kind}, {"id", 40, &op.ID}, {"text", smriti.MaxItemChars, &op.Text}, {"by", smriti.MaxItemChars, &op.By}, {"reason", smriti.MaxItemChars, &op.Reason}} {
		if *f.dst, err = str(f.name, f.limit); err != nil {
			return op, err
		}
	}
	if op.FromSeq, err = seq("from_seq"); err != nil {
		return op, err
	}
	if op.ToSeq, err = seq("to_seq"); err != nil {
		return op, err
	}
	q, err := str("quote", smriti.MaxQuoteChars)
	if err != nil {
		return op, err
	}
	if q != "" {
		op.Quote = &q
	}
	return op, nil
}
