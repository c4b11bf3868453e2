package mockderive

import (
	"fmt"
	"strings"

	"smriti"
)

// docLine is one line of a markdown text as scanDoc leaves it.
type docLine struct {
	text    string // the line as written; for a heading, the heading's words
	section string // the field section it is listed under (sectionOf), "" if none
	heading bool
}

// scanDoc reads markdown (a document to extract, or one turn) into the lines
// that may hold items and the artifacts it carries:
//   - a fenced code block is an artifact verbatim (its language the type);
//   - a "Files touched" list (a heading, or a "Files touched:" line with the
//     list after it or inline, comma-separated) is one "Files touched"
//     artifact with a path a line;
//   - an "## Artifacts" section's other lines are one markdown artifact;
//   - a heading named like a field, or a line such as "TODO:" or
//     "Decisions:" on its own, puts the list after it under that field (a
//     paragraph after the list ends it);
//   - a line with the mock's own "[mock…" echo is dropped.
//
// None of the artifact lines is returned as a line, so nothing inside code,
// a file list or an artifact becomes an item.
func scanDoc(text string) ([]docLine, []smriti.Artifact) {
	var d docScanner
	for _, line := range strings.Split(text, "\n") {
		d.line(line)
	}
	if d.fence != nil { // unclosed fence: keep what there is
		d.fence.Content = strings.Join(d.fenceBody, "\n")
		d.add(*d.fence)
	}
	d.flushFiles()
	d.flushArtifacts()
	return d.out, d.arts
}

// docScanner is scanDoc's state between lines.
type docScanner struct {
	out                 []docLine
	arts                []smriti.Artifact
	fence               *smriti.Artifact
	fenceBody           []string
	headSection         string // the section of the current heading
	colonSection        string // the section a "TODO:" line opened
	files               []string
	inFiles, filesBlock bool // a "Files touched:" list; a "Files touched" heading
	inArtifacts         bool
	artLines            []string
	fences              int
	listed              bool // a list item was seen under the current heading
}

func (d *docScanner) add(a smriti.Artifact) {
	a.ID = fmt.Sprintf("a%d", len(d.arts)+1)
	d.arts = append(d.arts, a)
}

func (d *docScanner) flushFiles() {
	if len(d.files) > 0 {
		d.add(smriti.Artifact{Type: "text", Label: "Files touched", Content: strings.Join(d.files, "\n")})
	}
	d.files, d.inFiles, d.filesBlock = nil, false, false
}

func (d *docScanner) flushArtifacts() {
	if c := strings.Trim(strings.Join(d.artLines, "\n"), "\n"); strings.TrimSpace(c) != "" {
		d.add(smriti.Artifact{Type: "markdown", Label: "Artifacts", Content: c})
	}
	d.artLines, d.inArtifacts = nil, false
}

// line scans one line of the document.
func (d *docScanner) line(line string) {
	trimmed := strings.TrimSpace(line)
	if d.fence != nil {
		if strings.HasPrefix(trimmed, "```") {
			d.fence.Content = strings.Join(d.fenceBody, "\n")
			d.add(*d.fence)
			d.fence = nil
		} else {
			d.fenceBody = append(d.fenceBody, line)
		}
		return
	}
	if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
		if d.inFiles {
			d.flushFiles()
		}
		lang := strings.TrimSpace(rest)
		d.fences++
		typ, label := "text", fmt.Sprintf("Code block %d", d.fences)
		if lang != "" {
			typ, label = strings.ToLower(lang), label+" ("+lang+")"
		}
		d.fence, d.fenceBody = &smriti.Artifact{Type: typ, Label: label}, nil
		return
	}
	if isEcho(trimmed) {
		return
	}
	if strings.HasPrefix(trimmed, "#") {
		heading := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
		d.flushFiles()
		d.flushArtifacts()
		d.headSection, d.colonSection, d.listed = "", "", false
		switch h := smriti.NormalizeItem(heading); {
		case isFilesLabel(h):
			d.filesBlock = true
		case h == "artifacts" || h == "artefacts":
			d.inArtifacts = true
		default:
			d.headSection = sectionOf(heading)
		}
		d.out = append(d.out, docLine{text: heading, heading: true})
		return
	}
	if d.inArtifacts {
		d.artLines = append(d.artLines, line)
		return
	}
	item, bullet := bulletText(trimmed)
	if d.filesBlock {
		if p := filePath(item); p != "" {
			d.files = append(d.files, p)
		}
		return
	}
	if d.inFiles {
		if trimmed == "" {
			return
		}
		if bullet {
			if p := filePath(item); p != "" {
				d.files = append(d.files, p)
			}
			return
		}
		d.flushFiles()
	}
	if d.colonSection != "" && trimmed != "" && !bullet {
		d.colonSection = ""
	}
	// A paragraph after a heading's list is no longer the list.
	if d.listed && trimmed != "" && !bullet && d.headSection != "objective" && d.headSection != "summary" {
		d.headSection = ""
	}
	if bullet {
		d.listed = true
	}
	if label, rest, ok := colonHead(trimmed); ok {
		if isFilesLabel(smriti.NormalizeItem(label)) {
			d.inFiles = true
			for _, p := range strings.Split(rest, ",") {
				if p = filePath(p); p != "" {
					d.files = append(d.files, p)
				}
			}
			return
		}
		if s := sectionOf(label); s != "" && rest == "" {
			d.colonSection = s
			return
		}
	}
	sec := d.headSection
	if d.colonSection != "" {
		sec = d.colonSection
	}
	d.out = append(d.out, docLine{text: line, section: sec})
}

// isEcho reports whether a line carries the offline mock's own reply
// ("[mock:mock] You said: …"), which never becomes an item.
func isEcho(line string) bool { return strings.Contains(line, "[mock") }

func isFilesLabel(normalised string) bool {
	switch normalised {
	case "files touched", "files changed", "files modified", "changed files", "touched files":
		return true
	}
	return false
}

// colonHead splits a line such as "TODO:", "**Files touched:** a.go" or
// "Decisions:" into its label and the rest. The label is one to four words
// of letters.
func colonHead(line string) (label, rest string, ok bool) {
	s := strings.ReplaceAll(strings.ReplaceAll(line, "**", ""), "__", "")
	label, rest, ok = strings.Cut(s, ":")
	if !ok {
		return "", "", false
	}
	label = strings.TrimSpace(label)
	n := len(strings.Fields(label))
	if n == 0 || n > 4 || strings.IndexFunc(label, func(r rune) bool { return !isWordRune(r) && r != ' ' }) >= 0 {
		return "", "", false
	}
	return label, strings.TrimSpace(rest), true
}

// filePath is a file list entry without its list marker, backticks or
// trailing punctuation.
func filePath(s string) string {
	s, _ = bulletText(s)
	return strings.TrimSpace(strings.TrimRight(strings.ReplaceAll(s, "`", ""), ".,;"))
}

// checkbox reads a task-list line, "- [ ] text" or "- [x] text".
func checkbox(line string) (text string, done, ok bool) {
	s := strings.TrimSpace(line)
	for _, p := range []string{"- ", "* ", "+ "} {
		if rest, cut := strings.CutPrefix(s, p); cut {
			s = strings.TrimSpace(rest)
			switch {
			case strings.HasPrefix(s, "[ ]"):
				return strings.TrimSpace(s[3:]), false, strings.TrimSpace(s[3:]) != ""
			case strings.HasPrefix(s, "[x]"), strings.HasPrefix(s, "[X]"):
				return strings.TrimSpace(s[3:]), true, strings.TrimSpace(s[3:]) != ""
			}
			return "", false, false
		}
	}
	return "", false, false
}
