package textutil

import (
	"path"
	"strconv"
	"strings"
)

// PathProblem says what is wrong with p as a path inside a project ("" when
// nothing): it must be relative, at most maxLen bytes, use forward slashes,
// be clean and stay inside the project root.
func PathProblem(p string, maxLen int) string {
	switch {
	case p == "":
		return "is empty"
	case len(p) > maxLen:
		return "is longer than " + strconv.Itoa(maxLen) + " characters"
	case strings.ContainsAny(p, "\\\x00\n\r"):
		return "must use forward slashes and hold no control characters"
	case strings.HasPrefix(p, "/"):
		return "must be relative to the project root"
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return "must be a clean path inside the project root"
	}
	return ""
}
