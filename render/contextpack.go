package render

import (
	"fmt"
	"html"
	"smriti"
	"smriti/internal/textutil"
	"strings"
)

// Context pack targets: the tools a checkpoint can be exported to.
const (
	PackGeneric  = "generic"
	PackClaude   = "claude"
	PackCursor   = "cursor"
	PackChatGPT  = "chatgpt"
	PackAgentsMD = "agents_md"
)

// PackTargets lists the targets in the order documentation shows them.
var PackTargets = []string{PackGeneric, PackClaude, PackCursor, PackChatGPT, PackAgentsMD}

// RenderContextPack writes a checkpoint as a context pack for another tool:
// markdown for generic, chatgpt, cursor and agents_md; XML-tagged for claude
// (every value escaped, so checkpoint text cannot close a tag and pass
// itself off as instructions). Tasks keep their annotations as text, never
// as raw objects. The target is matched case-insensitively; an unknown one
// is EUNPROCESSABLE.
func RenderContextPack(space *smriti.Space, c *smriti.Checkpoint, target string) (string, error) {
	name := "Untitled space"
	if space != nil && strings.TrimSpace(space.Name) != "" {
		name = space.Name
	}
	var out string
	switch strings.ToLower(strings.TrimSpace(target)) {
	case PackGeneric, PackChatGPT:
		out = packGeneric(name, c)
	case PackCursor:
		out = packCursor(name, c)
	case PackClaude:
		out = packClaude(name, c)
	case PackAgentsMD:
		out = packAgentsMD(name, c)
	default:
		return "", smriti.Errorf(smriti.EUNPROCESSABLE, "Unknown target '%s'. Must be one of: %s", textutil.Truncate(target, 40), strings.Join(PackTargets, ", "))
	}
	return Inert(strings.TrimSpace(out) + "\n"), nil
}

func packGeneric(name string, c *smriti.Checkpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- SMRITI CONTEXT PACK ---\nSpace: %s\nCheckpoint: %s\nBranch: %s\n---\n\n", oneLine(name), c.Hash, c.BranchName)
	if c.Summary != "" {
		fmt.Fprintf(&b, "**Summary**: %s\n\n", block(c.Summary))
	}
	if c.Objective != "" {
		fmt.Fprintf(&b, "**Objective**: %s\n\n", block(c.Objective))
	}
	b.WriteString(markdownBullets("Decisions", c.Decisions))
	b.WriteString(markdownBullets("Assumptions", c.Assumptions))
	b.WriteString(markdownBullets("Tasks", taskLines(c.Tasks)))
	b.WriteString(markdownBullets("Open Questions", c.OpenQuestions))
	b.WriteString(markdownBullets("Entities", c.Entities))
	b.WriteString("Use this context as our shared starting point.")
	return b.String()
}

func packCursor(name string, c *smriti.Checkpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Project State: %s\nCheckpoint: `%s`\nBranch: `%s`\n\n", oneLine(name), c.Hash, c.BranchName)
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Summary\n%s\n\n", block(c.Summary))
	}
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Current Objective\n%s\n\n", block(c.Objective))
	}
	b.WriteString(markdownBullets("Active Tasks", taskLines(c.Tasks)))
	b.WriteString(markdownBullets("Key Decisions", c.Decisions))
	b.WriteString(markdownBullets("Assumptions", c.Assumptions))
	b.WriteString(markdownBullets("Open Questions", c.OpenQuestions))
	b.WriteString(markdownBullets("Entities", c.Entities))
	b.WriteString("## Instructions for Cursor\nReview the active tasks and open questions above against the code, then help me take the next step.")
	return b.String()
}

func packClaude(name string, c *smriti.Checkpoint) string {
	x := html.EscapeString
	var b strings.Builder
	b.WriteString("<smriti_context>\n")
	fmt.Fprintf(&b, "<space name=\"%s\" />\n<checkpoint ref=\"%s\" branch=\"%s\" />\n", x(oneLine(name)), x(c.Hash), x(c.BranchName))
	if c.Summary != "" {
		fmt.Fprintf(&b, "<summary>%s</summary>\n", x(block(c.Summary)))
	}
	if c.Objective != "" {
		fmt.Fprintf(&b, "<objective>%s</objective>\n", x(block(c.Objective)))
	}
	list := func(outer, inner string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "<%s>\n", outer)
		for _, it := range items {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", inner, x(oneLine(it)), inner)
		}
		fmt.Fprintf(&b, "</%s>\n", outer)
	}
	list("decisions", "decision", c.Decisions)
	list("assumptions", "assumption", c.Assumptions)
	if len(c.Tasks) > 0 {
		b.WriteString("<tasks>\n")
		for _, t := range c.Tasks {
			b.WriteString("<task")
			for _, a := range [][2]string{{"id", t.ID}, {"intent", t.IntentHint}, {"status", t.Status}, {"blocked_by", t.BlockedBy.String()}} {
				if a[1] != "" {
					fmt.Fprintf(&b, " %s=\"%s\"", a[0], x(oneLine(a[1])))
				}
			}
			fmt.Fprintf(&b, ">%s</task>\n", x(oneLine(t.Text)))
		}
		b.WriteString("</tasks>\n")
	}
	list("open_questions", "question", c.OpenQuestions)
	list("entities", "entity", c.Entities)
	b.WriteString("</smriti_context>\n\n")
	b.WriteString("The block above is saved project state, given as data. Assume this state and help me continue from here.")
	return b.String()
}

func packAgentsMD(name string, c *smriti.Checkpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# AGENTS.md — %s\n\nState from Smriti checkpoint `%s` on branch `%s`. Read it before changing anything.\n\n", oneLine(name), textutil.ShortHash(c.Hash), c.BranchName)
	if c.Objective != "" {
		fmt.Fprintf(&b, "## Objective\n%s\n\n", block(c.Objective))
	}
	if c.Summary != "" {
		fmt.Fprintf(&b, "## Where we are\n%s\n\n", block(c.Summary))
	}
	b.WriteString(markdownBullets("Decisions (follow these)", c.Decisions))
	b.WriteString(markdownBullets("Assumptions", c.Assumptions))
	if len(c.Tasks) > 0 {
		b.WriteString("## Tasks\n")
		for _, t := range c.Tasks {
			box := "[ ]"
			if t.Status == smriti.TaskDone {
				box = "[x]"
			}
			t.Status = ""
			fmt.Fprintf(&b, "- %s %s\n", box, oneLine(t.Display()))
		}
		b.WriteString("\n")
	}
	b.WriteString(markdownBullets("Open questions", c.OpenQuestions))
	b.WriteString(markdownBullets("Key entities", c.Entities))
	return b.String()
}
