package intelligence

import (
	"smriti"
	"strings"
)

// checkboxMarker splits a markdown task-list marker off the front of an
// item: "[x] ship" is ("ship", TaskDone), "[ ] ship" is ("ship", TaskOpen).
// ok is false when the item has no marker.
func checkboxMarker(item string) (text, status string, ok bool) {
	s := strings.TrimSpace(item)
	if len(s) < 4 || s[0] != '[' || s[2] != ']' || (s[3] != ' ' && s[3] != '\t') {
		return item, "", false
	}
	switch s[1] {
	case 'x', 'X':
		return strings.TrimSpace(s[4:]), smriti.TaskDone, true
	case ' ':
		return strings.TrimSpace(s[4:]), smriti.TaskOpen, true
	}
	return item, "", false
}

// listItem strips a markdown list bullet ("- ", "* ", "+ ", "1. ", "1) ")
// from a line; ok is false for a line that is not a list item.
func listItem(line string) (string, bool) {
	s := strings.TrimSpace(line)
	for _, p := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[i+2:], true
	}
	return s, false
}

// documentCheckboxes reads the task-list items of a markdown document
// ("- [x] done thing", "* [ ] open thing", "1. [X] …") and maps each item's
// normalised text (NormalizeItem) to its status, TaskDone or TaskOpen.
// Items inside fenced code blocks are not tasks and are skipped. When the
// same text appears twice, the last state wins.
func documentCheckboxes(markdown string) map[string]string {
	out := map[string]string{}
	fenced := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		item, ok := listItem(line)
		if !ok {
			continue
		}
		if text, status, ok := checkboxMarker(item); ok && text != "" {
			out[smriti.NormalizeItem(text)] = status
		}
	}
	return out
}

// keepCheckboxState carries a document's checkbox state into the tasks
// extracted from it, so "- [x] write the migration" becomes a task with
// status "done" whatever the model did with the marker: a task whose text
// still starts with a marker has it removed and takes its state; a task
// whose text matches a checkbox item of the document (compared with
// NormalizeItem) takes that item's state. Other tasks keep the status they
// have. The slice is modified in place and returned.
func keepCheckboxState(tasks []smriti.Task, markdown string) []smriti.Task {
	boxes := documentCheckboxes(markdown)
	for i := range tasks {
		if text, status, ok := checkboxMarker(tasks[i].Text); ok && text != "" {
			tasks[i].Text, tasks[i].Status = text, status
			continue
		}
		if status, ok := boxes[smriti.NormalizeItem(tasks[i].Text)]; ok {
			tasks[i].Status = status
		}
	}
	return tasks
}
