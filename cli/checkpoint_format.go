package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"smriti"
	"smriti/httpapi"
)

// previewChars is how much of an artifact a preview shows.
const previewChars = 800

// notesOf reads the notes the server lists in a checkpoint's metadata.
func notesOf(c *httpapi.Commit) []httpapi.NoteOut {
	raw, ok := c.Metadata["notes"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var notes []httpapi.NoteOut
	if json.Unmarshal(b, &notes) != nil {
		return nil
	}
	return notes
}

// artifactsSection renders artifacts in full or as 800-character previews.
func artifactsSection(b *strings.Builder, arts []smriti.Artifact, full bool) {
	if len(arts) == 0 {
		return
	}
	b.WriteString("## Attached artifacts\n\n")
	for _, a := range arts {
		label := a.Label
		if label == "" {
			label = "Untitled"
		}
		content := a.Content
		if !full && len([]rune(content)) > previewChars {
			content = string([]rune(content)[:previewChars]) + "\n\n[… truncated, use --full-artifacts to see all]"
		}
		fmt.Fprintf(b, "### %s\n%s\n\n", label, content)
	}
}

// formatCheckpoint is `checkpoint show`.
func formatCheckpoint(c *httpapi.Commit, full bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", c.Message)
	meta := []string{"`" + short(c.CommitHash) + "`", relTime(c.CreatedAt), "branch `" + c.BranchName + "`"}
	if a := deref(c.AuthorAgent); a != "" {
		meta = append(meta, "by `"+a+"`")
	}
	if r := deref(c.ProjectRoot); r != "" {
		meta = append(meta, "at `"+tildePath(r)+"`")
	}
	b.WriteString(strings.Join(meta, " · ") + "\n")
	fmt.Fprintf(&b, "id: `%s`\n\n", c.ID)
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Objective\n%s\n\n", c.Objective)
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Summary\n%s\n\n", c.Summary)
	}
	bullets(&b, "Decisions", c.Decisions)
	bullets(&b, "Assumptions", c.Assumptions)
	tasks := make([]string, len(c.Tasks))
	for i, t := range c.Tasks {
		tasks[i] = t.Render()
	}
	bullets(&b, "Tasks", tasks)
	bullets(&b, "Open questions", c.OpenQuestions)
	artifactsSection(&b, c.Artifacts, full)
	if len(c.Entities) > 0 {
		fmt.Fprintf(&b, "## Entities\n%s\n\n", strings.Join(c.Entities, ", "))
	}
	if notes := notesOf(c); len(notes) > 0 {
		b.WriteString("## Notes\n")
		for _, n := range notes {
			kind := ""
			if n.Kind != "" && n.Kind != smriti.NoteKindNote {
				kind = "[" + n.Kind + "] "
			}
			fmt.Fprintf(&b, "- %s%s · %s — %s\n", kind, n.Author, relTime(n.CreatedAt), n.Text)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// formatCheckpointList is `checkpoint list`.
func formatCheckpointList(cps []httpapi.Commit) string {
	if len(cps) == 0 {
		return "No checkpoints yet.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d checkpoint(s):\n\n", len(cps))
	for _, c := range cps {
		branch := ""
		if c.BranchName != "main" {
			branch = " (branch: " + c.BranchName + ")"
		}
		fmt.Fprintf(&b, "- `%s` (%s) %s · %s%s\n", short(c.CommitHash), c.ID, c.Message, relTime(c.CreatedAt), branch)
	}
	return b.String()
}

var reviewLabels = map[string]string{
	smriti.IssueContradiction:         "Possible contradiction",
	smriti.IssueHiddenAssumption:      "Hidden assumption",
	smriti.IssueResolvedQuestion:      "Possibly resolved",
	smriti.IssueUnusedEntity:          "Possibly unused entity",
	smriti.IssueSuspiciousInstruction: "Reads like an instruction to a model",
}

// formatReview is `checkpoint review`.
func formatReview(r *httpapi.ReviewOut) string {
	if len(r.Issues) == 0 && len(r.Suggestions) == 0 {
		return "No issues found — reasoning looks consistent.\n"
	}
	var b strings.Builder
	b.WriteString("# Checkpoint review\n\n")
	if len(r.Issues) > 0 {
		fmt.Fprintf(&b, "Found %d issue(s):\n\n", len(r.Issues))
		for i, is := range r.Issues {
			label := reviewLabels[is.Type]
			if label == "" {
				label = is.Type
			}
			fmt.Fprintf(&b, "%d. **%s**\n   %s\n\n", i+1, label, is.Description)
		}
	}
	bullets(&b, "Suggestions", r.Suggestions)
	return strings.TrimRight(b.String(), "\n") + "\n"
}
