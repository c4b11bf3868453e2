package textutil

import (
	"regexp"
	"strings"
	"unicode"
)

// generatedBranch matches the branch names a fork gets when none is given.
var generatedBranch = regexp.MustCompile(`^fork-[0-9a-f]{7}(-\d+)?$`)

// ForkTitle names a fork's session after its branch ("try-postgres" → "Try
// postgres"); a generated branch name says nothing, so the session is named
// after the checkpoint it starts from instead ("Branch of “Go by train”").
func ForkTitle(branch, checkpointTitle string, limit int) string {
	if branch != "" && !generatedBranch.MatchString(branch) {
		words := strings.Fields(strings.NewReplacer("-", " ", "_", " ", "/", " ").Replace(branch))
		if len(words) > 0 {
			r := []rune(strings.Join(words, " "))
			r[0] = unicode.ToUpper(r[0])
			return PhraseTitle(string(r), limit)
		}
	}
	if t := PhraseTitle(checkpointTitle, limit-len("Branch of “”")); t != "" {
		return "Branch of “" + t + "”"
	}
	return "New branch"
}
