package coderef

import (
	"regexp"
	"smriti/internal/textutil"
	"strconv"
	"strings"
	"sync"

	"smriti"
)

// Mention is code an item's text cites: a path (with lines when written
// path:12 or path:12-30) or a Go symbol in backquotes (`app.Send`,
// `Store.Commit`).
type Mention struct {
	Path   string
	Lines  *smriti.LineRange
	Symbol string
}

// The patterns are compiled on first use, not at every command's start-up.
var (
	// a relative path with an extension, optionally :N or :N-M; it
	// starts a word (after space, an opening bracket or a quote)
	pathMention = lazyRegexp("(?:^|[\\s(\\[`'\"])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\\.[A-Za-z0-9]{1,10})(?::([0-9]{1,7})(?:-([0-9]{1,7}))?)?")
	// a Go name in backquotes, qualified once or twice, maybe with ()
	symbolMention = lazyRegexp("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*){1,2})(?:\\(\\))?`")
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Mentions lists the code text cites, in order, without repeats, at most
// smriti.MaxRefsPerItem. Whether a path exists or a symbol is declared is
// for the reader of the work tree to decide (refcheck).
func Mentions(text string) []Mention {
	var out []Mention
	seen := map[string]bool{}
	add := func(m Mention, key string) {
		if !seen[key] && len(out) < smriti.MaxRefsPerItem {
			seen[key] = true
			out = append(out, m)
		}
	}
	for _, m := range pathMention().FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(m[1], ".")
		if textutil.PathProblem(p, smriti.MaxRefPathLen) != "" || !strings.Contains(p, ".") {
			continue
		}
		mention := Mention{Path: p}
		if m[2] != "" {
			spec := m[2]
			if m[3] != "" {
				spec += "-" + m[3]
			}
			if r, ok := parseRange(spec); ok {
				mention.Lines = r
			}
		}
		key := p
		if mention.Lines != nil {
			key += ":" + strconv.Itoa(mention.Lines.From) + "-" + strconv.Itoa(mention.Lines.To)
		}
		add(mention, key)
	}
	for _, m := range symbolMention().FindAllStringSubmatch(text, -1) {
		if looksLikeFile(m[1]) {
			continue
		}
		add(Mention{Symbol: m[1]}, "#"+m[1])
	}
	return out
}

// looksLikeFile reports whether a dotted name is rather a file name
// (`main.go`) than a symbol.
func looksLikeFile(s string) bool {
	i := strings.LastIndexByte(s, '.')
	switch s[i+1:] {
	case "go", "ts", "tsx", "js", "md", "py", "rs", "json", "yaml", "yml", "toml", "sql", "txt", "sh", "mod", "sum", "html", "css":
		return true
	}
	return false
}
