package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func get(t *testing.T, h http.Handler, method, path, encoding string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	rd := r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		rd = z
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppServesFilesAndFallsBackToIndex(t *testing.T) {
	h := &app{files: fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/index-abc.js":  {Data: []byte(strings.Repeat("console.log('smriti');", 50))},
		"assets/index-abc.css": {Data: []byte("body{}")},
	}}
	for _, c := range []struct {
		path, want, cache, ctype string
		status                   int
	}{
		{"/", "<!doctype html><div id=root></div>", "no-cache", "text/html; charset=utf-8", 200},
		{"/sessions/5b0c/anything", "<!doctype html><div id=root></div>", "no-cache", "text/html; charset=utf-8", 200},
		{"/assets/index-abc.css", "body{}", "public, max-age=31536000, immutable", "text/css; charset=utf-8", 200},
		{"/assets/index-old.js", "not found\n", "", "text/plain; charset=utf-8", 404},
		// The compare page's address has dots but is a page, not a file.
		{"/spaces/5b0c/compare/0f99cd90-5443-45fb-8b80-b205043e275f...d42c6074-d18b-439c-9892-0dc7123e2651",
			"<!doctype html><div id=root></div>", "no-cache", "text/html; charset=utf-8", 200},
		{"/favicon.ico", "not found\n", "", "text/plain; charset=utf-8", 404},
	} {
		r := get(t, h, "GET", c.path, "")
		if got := body(t, r); r.StatusCode != c.status || got != c.want || r.Header.Get("Cache-Control") != c.cache || r.Header.Get("Content-Type") != c.ctype {
			t.Errorf("GET %s = %d %q cache %q type %q; want %d %q cache %q type %q", c.path, r.StatusCode, got,
				r.Header.Get("Cache-Control"), r.Header.Get("Content-Type"), c.status, c.want, c.cache, c.ctype)
		}
	}
	r := get(t, h, "GET", "/assets/index-abc.js", "gzip, br")
	if r.Header.Get("Content-Encoding") != "gzip" || body(t, r) != strings.Repeat("console.log('smriti');", 50) {
		t.Errorf("gzip: encoding %q", r.Header.Get("Content-Encoding"))
	}
	// A wrong method gets the API's error shape, not text/plain.
	r = get(t, h, "POST", "/", "")
	if b := body(t, r); r.StatusCode != 405 || r.Header.Get("Allow") != "GET, HEAD" || r.Header.Get("Content-Type") != "application/json" ||
		b != `{"detail":"Method POST is not allowed on /; allowed: GET, HEAD"}`+"\n" {
		t.Errorf("POST / = %d, Allow %q, type %q, body %q", r.StatusCode, r.Header.Get("Allow"), r.Header.Get("Content-Type"), b)
	}
}

func TestPlaceholderWithoutTheBuiltWorkspace(t *testing.T) {
	if Embedded() {
		t.Skip("built with the webui tag")
	}
	r := get(t, Handler(), "GET", "/sessions/x", "")
	if b := body(t, r); r.StatusCode != 200 || !strings.Contains(b, "built without the web workspace") || !strings.Contains(b, "make run") {
		t.Fatalf("placeholder = %d %q", r.StatusCode, b)
	}
	if r := get(t, Handler(), "DELETE", "/", ""); r.StatusCode != 405 {
		t.Fatalf("DELETE / = %d", r.StatusCode)
	}
}
