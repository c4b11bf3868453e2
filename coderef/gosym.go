package coderef

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"smriti"
)

// GoSymbolSpan is the lines of the top-level declaration symbol names in
// Go source: "Name" (a function, type, variable or constant),
// "Type.Method", or either qualified by its package ("pkg.Name",
// "pkg.Type.Method"). Doc comments are not part of the span. False when
// the source does not parse or declares no such symbol.
func GoSymbolSpan(src []byte, symbol string) (smriti.LineRange, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return smriti.LineRange{}, false
	}
	parts := strings.Split(strings.TrimSuffix(symbol, "()"), ".")
	if len(parts) > 1 && parts[0] == f.Name.Name {
		parts = parts[1:]
	}
	span := func(from, to token.Pos) (smriti.LineRange, bool) {
		return smriti.LineRange{From: fset.Position(from).Line, To: fset.Position(to).Line}, true
	}
	switch len(parts) {
	case 1:
		return topLevel(f, parts[0], span)
	case 2:
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == parts[1] && receiverName(fd) == parts[0] {
				return span(fd.Pos(), fd.End())
			}
		}
	}
	return smriti.LineRange{}, false
}

// topLevel finds a package-level function, type, variable or constant.
func topLevel(f *ast.File, name string, span func(from, to token.Pos) (smriti.LineRange, bool)) (smriti.LineRange, bool) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == name {
				return span(d.Pos(), d.End())
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				var names []*ast.Ident
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = []*ast.Ident{s.Name}
				case *ast.ValueSpec:
					names = s.Names
				}
				for _, n := range names {
					if n.Name != name {
						continue
					}
					if len(d.Specs) == 1 {
						return span(d.Pos(), d.End())
					}
					return span(s.Pos(), s.End())
				}
			}
		}
	}
	return smriti.LineRange{}, false
}

// receiverName is the type name of a method's receiver (T for *T and
// T[K]).
func receiverName(fd *ast.FuncDecl) string {
	if len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
