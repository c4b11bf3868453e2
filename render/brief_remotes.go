package render

import (
	"strings"

	"smriti/remote"
)

// remotes says how each branch tracked on another copy of the space stands
// against it, with the command that brings the other copy's work in.
func (r briefRenderer) remotes(ds []remote.Divergence) string {
	if len(ds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Other copies\n")
	for _, d := range ds {
		b.WriteString("- " + oneLine(d.Describe(r.o.Now)) + "\n")
	}
	return b.String()
}
