// Package web serves the web workspace: the single-page app built from this
// directory's sources into dist/ by Vite. A binary built with the "webui"
// tag embeds dist/; one built without it (or before the UI was built)
// serves a short page saying how to build it, so `go build ./...` works on
// a fresh clone without Node.
package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// Handler serves the workspace: files from dist, index.html for every other
// path (the app routes in the browser), hashed assets cached for a year,
// index.html never cached. The API server mounts it below its own routes.
func Handler() http.Handler {
	if dist == nil {
		return http.HandlerFunc(placeholder)
	}
	return &app{files: dist}
}

// Embedded reports whether this binary carries the built workspace.
func Embedded() bool { return dist != nil }

type app struct {
	files fs.FS
	gz    sync.Map // path → []byte, gzip of compressible assets
}

func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" || name == "index.html" {
		a.index(w, r)
		return
	}
	data, err := fs.ReadFile(a.files, name)
	if err != nil {
		if strings.HasPrefix(name, "assets/") || looksLikeFile(name) {
			// A missing asset is a 404, not the app: a stale page asking
			// for an old hashed file must fail loudly.
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		a.index(w, r)
		return
	}
	if strings.HasPrefix(name, "assets/") {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	a.serve(w, r, name, data)
}

func (a *app) index(w http.ResponseWriter, r *http.Request) {
	data, err := fs.ReadFile(a.files, "index.html")
	if err != nil {
		http.Error(w, "index.html missing from the embedded workspace", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	a.serve(w, r, "index.html", data)
}

// serve writes a file, gzipped when the client accepts it and the type
// compresses.
func (a *app) serve(w http.ResponseWriter, r *http.Request, name string, data []byte) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	ext := path.Ext(name)
	compressible := ext == ".js" || ext == ".css" || ext == ".html" || ext == ".svg" || ext == ".json"
	if compressible && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		var z []byte
		if v, ok := a.gz.Load(name); ok {
			z = v.([]byte)
		} else {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write(data)
			zw.Close()
			z = buf.Bytes()
			a.gz.Store(name, z)
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
		if ct := contentType(ext); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(z))
		return
	}
	if ct := contentType(ext); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

func contentType(ext string) string {
	switch ext {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".json":
		return "application/json"
	}
	return ""
}

const placeholderPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Smriti</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>Smriti</h1>
<p>This binary was built without the web workspace. The API is running: see <a href="/docs">/docs</a>.</p>
<p>To build the workspace into the binary, run <code>make run</code> (it needs Node 20 and npm), or by hand:</p>
<pre>cd web &amp;&amp; npm ci &amp;&amp; npm run build &amp;&amp; cd ..
go build -tags webui -o bin/smriti ./cmd/smriti</pre>
</body></html>
`

func placeholder(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	io.WriteString(w, placeholderPage)
}

// readOnly answers 405 to anything but GET and HEAD.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	// The API's error shape, so a client sees one kind of 405 everywhere.
	body, _ := json.Marshal(map[string]string{"detail": "Method " + r.Method + " is not allowed on " + r.URL.Path + "; allowed: GET, HEAD"})
	w.Header().Set("Allow", "GET, HEAD")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusMethodNotAllowed)
	w.Write(append(body, '\n'))
	return false
}

// looksLikeFile reports whether a path names a file (a short alphanumeric
// extension such as .js or .png) rather than a page of the app: the compare
// page's /spaces/…/compare/A...B has dots but is a page.
func looksLikeFile(name string) bool {
	ext := path.Ext(path.Base(name))
	if len(ext) < 2 || len(ext) > 6 {
		return false
	}
	for _, r := range ext[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
