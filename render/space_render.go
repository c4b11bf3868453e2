package render

import (
	"fmt"
	"smriti"
	"strings"
)

// RenderSpaces writes the list of spaces the CLI and the MCP tools show: each
// name, UUID and description; with none, how to create one (create names
// that surface's command).
func RenderSpaces(spaces []*smriti.Space, create string) string {
	if len(spaces) == 0 {
		return "No spaces yet. Create one with " + create + ".\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d space(s):\n\n", len(spaces))
	for _, s := range spaces {
		fmt.Fprintf(&b, "- **%s** `%s`\n", oneLine(s.Name), s.ID)
		if d := strings.TrimSpace(s.Description); d != "" {
			fmt.Fprintf(&b, "  %s\n", oneLine(d))
		}
	}
	return Inert(b.String())
}
