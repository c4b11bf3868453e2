package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkBrowserGuard measures what the browser checks add to every
// request: a same-origin JSON POST on a loopback listener.
func BenchmarkBrowserGuard(b *testing.B) {
	g := newBrowserGuard([]string{"http://localhost:5173"}, nil)
	req := httptest.NewRequest("POST", "http://127.0.0.1:8000/api/v2/repos", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Origin", "http://127.0.0.1:8000")
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}))
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.check(w, req); err != nil {
			b.Fatal(err)
		}
	}
}
