package mockderive

import (
	"encoding/json"
	"fmt"
	"smriti/intelligence"
	"strings"

	"smriti"
)

// mockReviewNote is the suggestion every review of the mock ends with, so a
// reader never takes its findings for a model's.
const mockReviewNote = "Offline mock review: deterministic checks only (instruction-like text, same subject with a different number or negation, answered questions, superseded items, unused entities); configure a provider for a model's review."

// reviewData is the review prompt's data block: the checkpoint, and across
// checkpoints its parent and both sides' items with their statuses.
type reviewData struct {
	intelligence.ReviewData
	Parent      *intelligence.ReviewData `json:"parent"`
	Items       []baseItem               `json:"items"`
	ParentItems []baseItem               `json:"parent_items"`
}

// deriveReview reviews the checkpoint quoted (as JSON) in a review prompt:
// smriti.ReviewChecks, then contradictions (two decisions, or a decision and
// an assumption, on the same subject with a different number or negation;
// a carried decision contradicted by a new one is named so), superseded or
// retracted items still present, open questions a decision answers, and
// unused entities.
func deriveReview(data string) *intelligence.Review {
	var rd reviewData
	_ = json.Unmarshal([]byte(data), &rd) // empty or foreign data reviews an empty checkpoint
	c := &smriti.Checkpoint{Content: smriti.Content{
		Message: rd.Title, Objective: rd.Objective, Summary: rd.Summary,
		Decisions: rd.Decisions, Assumptions: rd.Assumptions, OpenQuestions: rd.OpenQuestions, Entities: rd.Entities,
	}}
	for _, t := range rd.Tasks {
		c.Tasks = append(c.Tasks, smriti.Task{Text: t})
	}
	issues := intelligence.ReviewChecks(c)
	issues = append(issues, contradictions(rd)...)
	issues = append(issues, supersededPresent(rd)...)
	parentDecisions := map[string]bool{}
	if rd.Parent != nil {
		for _, d := range rd.Parent.Decisions {
			parentDecisions[dedupKey(d)] = true
		}
	}
	for _, q := range c.OpenQuestions {
		if d, ok := answeringDecision(q, c.Decisions); ok {
			desc := fmt.Sprintf("The open question %q looks answered by the decision %q.", q, d)
			if rd.Parent != nil && !parentDecisions[dedupKey(d)] {
				desc = fmt.Sprintf("The open question %q is still open, but the new decision %q looks like its answer.", q, d)
			}
			issues = append(issues, intelligence.ReviewIssue{Type: intelligence.IssueResolvedQuestion, Description: desc})
		}
	}
	used := " " + smriti.NormalizeItem(strings.Join(append(append([]string{c.Objective, c.Summary}, c.Decisions...), rd.Tasks...), " ")) + " "
	for _, e := range c.Entities {
		if k := smriti.NormalizeItem(e); k != "" && !strings.Contains(used, " "+k+" ") {
			issues = append(issues, intelligence.ReviewIssue{Type: intelligence.IssueUnusedEntity,
				Description: fmt.Sprintf("The entity %q is not referenced in the objective, summary, decisions or tasks.", e)})
		}
	}
	r := intelligence.CombineReview(issues, nil)
	seen := map[string]bool{}
	for _, is := range r.Issues {
		s := suggestionFor(is.Type)
		if seen[s] || len(r.Suggestions) == intelligence.MaxReviewSuggestions-1 {
			continue
		}
		seen[s] = true
		r.Suggestions = append(r.Suggestions, s)
	}
	r.Suggestions = append(r.Suggestions, mockReviewNote)
	return r
}

// contradictions finds pairs of statements on the same subject (SameSubject)
// among the checkpoint's decisions, and between its decisions and
// assumptions. With a parent, a pair of a decision carried from it and a
// new one says so.
func contradictions(rd reviewData) []intelligence.ReviewIssue {
	var out []intelligence.ReviewIssue
	carried := map[string]bool{}
	if rd.Parent != nil {
		for _, d := range append(append([]string{}, rd.Parent.Decisions...), rd.Parent.Assumptions...) {
			carried[dedupKey(d)] = true
		}
	}
	ds := rd.Decisions
	for i, a := range ds {
		for _, b := range ds[i+1:] {
			if !SameSubject(a, b) {
				continue
			}
			desc := fmt.Sprintf("The decisions %q and %q set the same thing differently.", a, b)
			switch ca, cb := carried[dedupKey(a)], carried[dedupKey(b)]; {
			case ca && !cb:
				desc = fmt.Sprintf("The decision %q, carried from the parent checkpoint, is contradicted by the new decision %q.", a, b)
			case cb && !ca:
				desc = fmt.Sprintf("The decision %q, carried from the parent checkpoint, is contradicted by the new decision %q.", b, a)
			}
			out = append(out, intelligence.ReviewIssue{Type: intelligence.IssueContradiction, Description: desc})
		}
	}
	for _, d := range ds {
		for _, a := range rd.Assumptions {
			if SameSubject(d, a) {
				out = append(out, intelligence.ReviewIssue{Type: intelligence.IssueContradiction,
					Description: fmt.Sprintf("The decision %q and the assumption %q state the same thing differently.", d, a)})
			}
		}
	}
	return out
}

// supersededPresent finds items marked superseded or retracted (in the
// checkpoint's or its parent's items) whose text is still one of the
// checkpoint's live items.
func supersededPresent(rd reviewData) []intelligence.ReviewIssue {
	live := map[string]bool{}
	for _, l := range [][]string{rd.Decisions, rd.Assumptions, rd.Tasks, rd.OpenQuestions, rd.Entities} {
		for _, s := range l {
			live[dedupKey(s)] = true
		}
	}
	for _, it := range rd.Items {
		if it.Status == "" || it.Status == statusOpen || it.Status == statusDone {
			live[dedupKey(it.Text)] = true
		}
	}
	var out []intelligence.ReviewIssue
	reported := map[string]bool{}
	for _, it := range append(append([]baseItem{}, rd.Items...), rd.ParentItems...) {
		k := dedupKey(it.Text)
		if (it.Status != "superseded" && it.Status != "retracted") || !live[k] || reported[k] {
			continue
		}
		reported[k] = true
		noun := kindNoun(it.Kind)
		out = append(out, intelligence.ReviewIssue{Type: intelligence.IssueContradiction,
			Description: fmt.Sprintf("The %s %q (%s) was %s but is still present.", noun, it.Text, it.ID, it.Status)})
	}
	return out
}

func suggestionFor(issueType string) string {
	switch issueType {
	case intelligence.IssueSuspiciousInstruction:
		return "Remove or rewrite text addressed to an AI model; a checkpoint should record project state only."
	case intelligence.IssueResolvedQuestion:
		return "Resolve answered questions instead of keeping them open."
	case intelligence.IssueUnusedEntity:
		return "Reference the entity where it matters, or remove it."
	case intelligence.IssueContradiction:
		return "Keep one of the conflicting statements: update or retract the other."
	}
	return "Revisit the checkpoint for consistency."
}
