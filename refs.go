package smriti

import "strings"

// How people and agents name spaces: by UUID or by name. The CLI and the MCP
// tools both resolve names with these rules. A checkpoint is named by its
// UUID or a unique prefix of its id or hash (at least MinRefPrefix
// characters), which app resolves on the server in one query.

// MatchSpaceName returns the index of the one name equal to arg, else of
// the one equal ignoring case. Several matches are EINVALID (use the UUID),
// none is ENOTFOUND.
func MatchSpaceName(names []string, arg string) (int, error) {
	var exact, fold []int
	for i, n := range names {
		if n == arg {
			exact = append(exact, i)
		} else if strings.EqualFold(n, arg) {
			fold = append(fold, i)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) > 1:
		return -1, Errorf(EINVALID, "several spaces are named %q; use the UUID to choose one", arg)
	case len(fold) == 1:
		return fold[0], nil
	case len(fold) > 1:
		return -1, Errorf(EINVALID, "several spaces match %q ignoring case; use the UUID to choose one", arg)
	}
	return -1, Errorf(ENOTFOUND, "no space found matching %q", arg)
}
