// Package layering holds the check that keeps the arrows between Smriti's
// packages pointing one way: storage does not know the file formats or
// the model's prompts, and the HTTP types do not know the markdown views.
package layering

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// banned lists, for a package, the packages it may not depend on, directly
// or through another.
var banned = []struct {
	pkg   string
	never []string
}{
	{"smriti/store", []string{"smriti/portability", "smriti/intelligence"}},
	{"smriti/records", []string{"smriti/portability", "smriti/intelligence", "smriti/store"}},
	{"smriti/wire", []string{"smriti/render"}},
	// The git remote is an adapter: it meets the others in the domain.
	{"smriti/gitremote", []string{"smriti/store", "smriti/httpapi", "smriti/client", "smriti/app"}},
	// The detector is a leaf: it knows text and rules, nothing of Smriti.
	{"smriti/secrets", []string{"smriti"}},
	// The CLI asks the server to count tokens: loading the tokenizer
	// would cost each agent command about 40 MB and a third of a second.
	{"smriti/cli", []string{"smriti/tokenizer"}},
}

// forbidden is the banned packages among deps, in the order of never.
func forbidden(deps, never []string) []string {
	have := map[string]bool{}
	for _, d := range deps {
		have[d] = true
	}
	var out []string
	for _, n := range never {
		if have[n] {
			out = append(out, n)
		}
	}
	return out
}

func TestForbiddenFindsBannedDeps(t *testing.T) {
	deps := []string{"fmt", "smriti", "smriti/portability", "smriti/search"}
	if got, want := forbidden(deps, []string{"smriti/intelligence", "smriti/portability"}), []string{"smriti/portability"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("forbidden = %v, want %v", got, want)
	}
	if got := forbidden(deps, []string{"smriti/render"}); got != nil {
		t.Fatalf("forbidden = %v, want none", got)
	}
}

// deps is every package pkg depends on (go list -deps, tests left out).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", pkg)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
	}
	return strings.Fields(string(out))
}

func TestNoBannedArrows(t *testing.T) {
	for _, b := range banned {
		d := deps(t, b.pkg)
		if len(d) == 0 || d[len(d)-1] != b.pkg {
			t.Fatalf("go list -deps %s does not end with the package itself: %v", b.pkg, d)
		}
		if bad := forbidden(d, b.never); len(bad) > 0 {
			t.Errorf("%s depends on %s; it must not", b.pkg, strings.Join(bad, ", "))
		}
	}
}
