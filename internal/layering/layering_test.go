// Package layering holds the check that keeps the arrows between Smriti's
// packages pointing one way: storage does not know the file formats or
// the model's prompts, the HTTP types do not know the markdown views, the
// entry points reach storage only through the App, the CLI reaches the
// App only through the API, the provider adapters do not know the eval
// harness, and the domain at the root knows nothing around it.
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
	// The conformance suite checks storage: the App's merges are handed in.
	{"smriti/store/storetest", []string{"smriti/app"}},
	{"smriti/records", []string{"smriti/portability", "smriti/intelligence", "smriti/store"}},
	{"smriti/wire", []string{"smriti/render"}},
	// The git remote is an adapter: it meets the others in the domain.
	{"smriti/gitremote", []string{"smriti/store", "smriti/httpapi", "smriti/client", "smriti/app"}},
	// The detector is a leaf: it knows text and rules, nothing of Smriti.
	{"smriti/secrets", []string{"smriti"}},
	// Entry points are decode → App → encode: none reaches the store.
	{"smriti/httpapi", []string{"smriti/store"}},
	{"smriti/mcp", []string{"smriti/store"}},
	// The CLI asks the server to count tokens: loading the tokenizer
	// would cost each agent command about 40 MB and a third of a second.
	{"smriti/cli", []string{"smriti/store", "smriti/app", "smriti/tokenizer"}},
	{"smriti/client", []string{"smriti/store", "smriti/app"}},
	// The use cases know the domain and its pure helpers, not an adapter or
	// a view.
	{"smriti/app", []string{"smriti/store", "smriti/httpapi", "smriti/mcp", "smriti/cli", "smriti/provider", "smriti/render"}},
	// The adapters to the models do not know the harness that scores them.
	{"smriti/provider", []string{"smriti/eval", "smriti/eval/oracle", "smriti/eval/evalrun"}},
}

// rootMayImport is what the domain at the root may depend on among
// Smriti's packages: its internal helpers only.
func rootMayImport(pkg string) bool {
	return pkg == "smriti" || strings.HasPrefix(pkg, "smriti/internal/")
}

func TestRootImportsOnlyInternal(t *testing.T) {
	for _, d := range deps(t, "smriti") {
		if strings.HasPrefix(d, "smriti/") && !rootMayImport(d) {
			t.Errorf("the root package depends on %s; it may depend on smriti/internal/... only", d)
		}
	}
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
