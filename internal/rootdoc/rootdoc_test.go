// Package rootdoc holds the check that keeps the domain package's summary
// short: `go doc -short` of the root package should read as the domain's
// words, so helpers that are not domain concepts live in internal packages
// and functions over one type are its methods.
package rootdoc

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxRootLines bounds the lines `go doc -short` prints for the root
// package. The bound only goes down, to the count the
// root has reached, as more of it moves where it belongs.
const maxRootLines = 110

// shortLines counts the lines `go doc -short` prints for the package in
// dir: one per exported const or var declaration (a block counts once), per
// exported function, and per exported type, and under each type one per
// const or var block of that type and per constructor-like function.
func shortLines(t *testing.T, dir string) (int, []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	p, err := doc.NewFromFiles(fset, files, "smriti")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names[0])
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, ty := range p.Types {
		names = append(names, ty.Name)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			names = append(names, ty.Name+"."+f.Name)
		}
	}
	return len(names), names
}

func TestRootDocIsShort(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	n, names := shortLines(t, root)
	if n > maxRootLines {
		t.Errorf("go doc -short of the root package lists %d names, more than %d: move helpers that are not domain concepts to internal packages and make functions over one type its methods\n%s",
			n, maxRootLines, strings.Join(names, "\n"))
	}
}

// TestShortLinesCountsAsGoDoc checks the count on a package whose go doc
// -short is known: a const block and a single const (2), a var block (1), a
// function (1), two types (2), a typed const block and a constructor under
// one of them (2); methods and unexported names are not listed.
func TestShortLinesCountsAsGoDoc(t *testing.T) {
	dir := t.TempDir()
	src := `package x

const (
	A = 1
	B = 2
)

const C = 3

var (
	V = 1
	W = 2
)

func F() {}

func g() {}

type Kind string

const (
	K1 Kind = "a"
	K2 Kind = "b"
)

type T struct{}

func NewT() *T { return nil }

func (T) M() {}

type u struct{}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, names := shortLines(t, dir); n != 8 {
		t.Fatalf("shortLines = %d (%v), want 8", n, names)
	}
}
