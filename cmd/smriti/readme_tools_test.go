package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"smriti/mcp"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite the README's MCP tool list from the registered tools")

const (
	readmePath  = "../../README.md"
	toolsBegin  = "<!-- mcp-tools: generated from the registered tools by `go generate ./cmd/smriti`; do not edit -->\n"
	toolsFinish = "<!-- end of mcp-tools -->\n"
)

// TestREADMEToolList: the README's MCP tool list is the registered tools,
// names and descriptions, in tools/list order. Rewrite it with
// `go generate ./cmd/smriti` (go test -run TestREADMEToolList -update-readme).
func TestREADMEToolList(t *testing.T) {
	base := startAPI(t)
	session := mcpOverAll(t, base)
	list := listTools(t, session)
	core := map[string]bool{}
	for _, n := range mcp.CoreTools() {
		core[n] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`smriti mcp` (stdio) and `/mcp` on the server offer the same tools: the %d of the default `core` toolset "+
		"(the agent loop, marked ●), or all %d with `smriti mcp --tools all` (`/mcp?tools=all`):\n\n| Tool | Core | What it does |\n| --- | --- | --- |\n",
		len(core), len(list.Tools))
	for _, tool := range list.Tools {
		desc := strings.ReplaceAll(strings.Join(strings.Fields(tool.Description), " "), "|", `\|`)
		mark := ""
		if core[tool.Name] {
			mark = "●"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", tool.Name, mark, desc)
	}
	want := b.String()

	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok := strings.Cut(readme, toolsBegin)
	if !ok {
		t.Fatalf("README.md has no line %q", strings.TrimSpace(toolsBegin))
	}
	got, after, ok := strings.Cut(rest, toolsFinish)
	if !ok {
		t.Fatalf("README.md has no line %q", strings.TrimSpace(toolsFinish))
	}
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(readmePath, []byte(before+toolsBegin+want+toolsFinish+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the MCP tool list in README.md (%d tools)", len(list.Tools))
		return
	}
	t.Fatalf("README.md's MCP tool list differs from the registered tools (run go generate ./cmd/smriti):\n%s", lineDiff(got, want))
}

// lineDiff lists the lines only in the README (-) and only in the code (+),
// in their order.
func lineDiff(readme, code string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	inCode, inReadme := count(code), count(readme)
	var b strings.Builder
	for _, l := range strings.Split(readme, "\n") {
		if inCode[l] > 0 {
			inCode[l]--
			continue
		}
		b.WriteString("- " + l + "\n")
	}
	for _, l := range strings.Split(code, "\n") {
		if inReadme[l] > 0 {
			inReadme[l]--
			continue
		}
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}
