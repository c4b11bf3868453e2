// Package refcheck checks items' code refs against a git work tree, on the
// side that reads the state (the CLI, `smriti mcp`): it makes refs for
// writes (--ref path:12-30, citations in an item's text) and classifies
// stored refs with package coderef, asking git only about the refs that
// are not fresh. Files are read through an os.Root, so a stored path never
// reads outside the work tree. It must not import HTTP, SQL or providers.
package refcheck

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"smriti"
	"smriti/coderef"
	"smriti/gitcli"
	"smriti/internal/textutil"
)

// maxFileBytes bounds a file a ref is checked against.
const maxFileBytes = 8 << 20

// Checker reads one work tree.
type Checker struct {
	git  *gitcli.Git
	root *os.Root
	// Root is the work tree's top-level directory, Head its HEAD commit.
	Root string
	Head string
	// goFiles caches the tracked Go files, for symbol citations.
	goFiles []string
}

// Open opens the work tree holding dir. ENOTFOUND when dir is not in a git
// work tree or it has no commit yet.
func Open(ctx context.Context, g *gitcli.Git, dir string) (*Checker, error) {
	top, head, err := g.WorkTreeHead(ctx, dir)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(top)
	if err != nil {
		return nil, smriti.Errorf(smriti.ENOTFOUND, "cannot open the work tree %s: %v", top, err)
	}
	return &Checker{git: g, root: r, Root: top, Head: head}, nil
}

// Close releases the work tree.
func (c *Checker) Close() error { return c.root.Close() }

// read is a file's text; false when the work tree has no such file (a
// path that would leave the work tree, through a symbolic link, has none).
func (c *Checker) read(p string) ([]byte, bool, error) {
	f, err := c.root.Open(filepath.FromSlash(p))
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, false, smriti.Errorf(smriti.EINVALID, "cannot read %s: permission denied", p)
		}
		return nil, false, nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return nil, false, nil
	}
	if st.Size() > maxFileBytes {
		return nil, true, smriti.Errorf(smriti.EINVALID, "%s is larger than %d MiB; cite a smaller file", p, maxFileBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes))
	if err != nil {
		return nil, false, smriti.Errorf(smriti.EINVALID, "cannot read %s: %v", p, err)
	}
	return b, true, nil
}

// Ref makes the ref a writer means by spec ("path", "path:12",
// "path:12-30"), the path relative to dir (inside the work tree): the
// cited lines (the whole file without lines) at the work tree's text,
// hashed, against HEAD. EINVALID for a file that is not there or lines
// past its end.
func (c *Checker) Ref(dir, spec string) (smriti.ItemRef, error) {
	p, lines, err := coderef.ParseSpec(spec)
	if err != nil {
		return smriti.ItemRef{}, err
	}
	rel, err := c.relative(dir, p)
	if err != nil {
		return smriti.ItemRef{}, err
	}
	src, ok, err := c.read(rel)
	if err != nil {
		return smriti.ItemRef{}, err
	}
	if !ok {
		return smriti.ItemRef{}, smriti.Errorf(smriti.EINVALID, "ref %q: no file %s in the work tree %s", textutil.Truncate(spec, 80), rel, c.Root)
	}
	return c.spanRef(rel, lines, src, spec)
}

func (c *Checker) spanRef(rel string, lines *smriti.LineRange, src []byte, spec string) (smriti.ItemRef, error) {
	all := coderef.SplitLines(src)
	span := all
	if lines != nil {
		var ok bool
		if span, ok = coderef.Span(all, *lines); !ok {
			return smriti.ItemRef{}, smriti.Errorf(smriti.EINVALID, "ref %q: %s has %d lines", textutil.Truncate(spec, 80), rel, len(all))
		}
	}
	return smriti.ItemRef{Path: rel, Lines: lines, Commit: c.Head, SpanHash: coderef.SpanHash(span)}, nil
}

// relative is p (relative to dir) relative to the work tree's root.
func (c *Checker) relative(dir, p string) (string, error) {
	base := c.Root
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			base = abs
		}
	}
	rel, err := filepath.Rel(c.Root, filepath.Join(base, filepath.FromSlash(p)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", smriti.Errorf(smriti.EINVALID, "ref %q is outside the work tree %s", textutil.Truncate(p, 80), c.Root)
	}
	return filepath.ToSlash(rel), nil
}

// SymbolRef makes the ref of a Go symbol ("pkg.Name", "pkg.Type.Method")
// declared in a tracked Go file of a directory named pkg (the root
// directory too); false when none declares it.
func (c *Checker) SymbolRef(ctx context.Context, symbol string) (smriti.ItemRef, bool, error) {
	pkg, _, ok := strings.Cut(symbol, ".")
	if !ok {
		return smriti.ItemRef{}, false, nil
	}
	if c.goFiles == nil {
		files, err := c.git.TrackedFiles(ctx, c.Root, "*.go")
		if err != nil {
			return smriti.ItemRef{}, false, err
		}
		c.goFiles = append(files[:0:0], files...)
		if c.goFiles == nil {
			c.goFiles = []string{}
		}
	}
	for _, f := range c.goFiles {
		dir := path.Dir(f)
		if strings.HasSuffix(f, "_test.go") || dir != "." && path.Base(dir) != pkg {
			continue
		}
		src, ok, err := c.read(f)
		if err != nil || !ok {
			continue
		}
		r, found := coderef.GoSymbolSpan(src, symbol)
		if !found {
			continue
		}
		ref, err := c.spanRef(f, &r, src, symbol)
		if err != nil {
			return smriti.ItemRef{}, false, err
		}
		s := symbol
		ref.Symbol = &s
		return ref, true, nil
	}
	return smriti.ItemRef{}, false, nil
}

// RefsIn makes refs of the code text cites (coderef.Mentions) that the
// work tree holds: paths that are files (lines within them), symbols some
// Go file declares. Citations of nothing are left out.
func (c *Checker) RefsIn(ctx context.Context, text string) []smriti.ItemRef {
	var out []smriti.ItemRef
	for _, m := range coderef.Mentions(text) {
		if m.Symbol != "" {
			if ref, ok, err := c.SymbolRef(ctx, m.Symbol); err == nil && ok {
				out = append(out, ref)
			}
			continue
		}
		src, ok, err := c.read(m.Path)
		if err != nil || !ok {
			continue
		}
		if ref, err := c.spanRef(m.Path, m.Lines, src, m.Path); err == nil {
			out = append(out, ref)
		}
	}
	return out
}
