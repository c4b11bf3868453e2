package httpapi

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"smriti/internal/textutil"
	"strings"

	"smriti"
)

// The browser-borne attacks this file stops, and how:
//
//   - Cross-origin reads: no CORS grant at all unless an origin is named
//     with --cors-origin; a grant names that one origin, never "*" and
//     never "null".
//   - Cross-site writes without a preflight ("simple" requests sent by a
//     form or fetch with text/plain): every request body must be
//     application/json (or, for the file imports, application/octet-stream
//     or application/gzip), none of which a page on another site can send
//     without a preflight that is refused; and a state-changing request whose
//     Origin names another origin than the Host it was sent to is refused,
//     unless the browser says Sec-Fetch-Site: same-origin (a reverse proxy
//     may have rewritten Host), as is one whose Sec-Fetch-Site is cross-site.
//   - DNS rebinding: on a loopback listener only loopback Host names are
//     answered (plus any --allowed-host), so a foreign name that resolves
//     to 127.0.0.1 gets nothing.
//
// The web workspace is served from the same origin as the API, so it needs
// none of this relaxed. In auth mode the browser session cookie is
// SameSite=Strict and HttpOnly; together with the Origin check that is the
// CSRF defence, so the workspace sends no separate CSRF token.

// ValidateCORSOrigin checks one --cors-origin value: an absolute http(s)
// origin with no path. "*" and "null" are refused: a wildcard grant would
// hand every site the user's data, and "null" is what sandboxed frames and
// file:// pages send.
func ValidateCORSOrigin(origin string) (string, error) {
	o := strings.TrimRight(strings.TrimSpace(origin), "/")
	if o == "*" || strings.EqualFold(o, "null") {
		return "", fmt.Errorf("CORS origin %q is not allowed: name each origin, such as http://localhost:5173", origin)
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("CORS origin %q must be scheme://host[:port], such as http://localhost:5173", origin)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// browserGuard is the middleware that applies the rules above. It runs
// before routing, so every route — including ones added later — is covered.
type browserGuard struct {
	origins      map[string]bool
	allowedHosts map[string]bool
}

func newBrowserGuard(origins, hosts []string) *browserGuard {
	g := &browserGuard{origins: map[string]bool{}, allowedHosts: map[string]bool{}}
	for _, o := range origins {
		if v, err := ValidateCORSOrigin(o); err == nil {
			g.origins[v] = true
		}
	}
	for _, h := range hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			g.allowedHosts[h] = true
		}
	}
	return g
}

// check returns the error to answer with, or nil to go on. It sets the CORS
// headers for an allowed origin. done reports that the request has been
// fully answered (a preflight).
func (g *browserGuard) check(w http.ResponseWriter, r *http.Request) (done bool, err error) {
	if err := g.checkHost(r); err != nil {
		return false, err
	}
	if dotSegments(r.URL.Path) {
		return false, smriti.Errorf(smriti.ENOTFOUND, "Not found: %s %s", r.Method, textutil.Truncate(r.URL.Path, 200))
	}
	origin := r.Header.Get("Origin")
	allowed := origin != "" && g.origins[strings.ToLower(origin)]
	if allowed {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Add("Vary", "Origin")
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		if !allowed {
			return false, smriti.Errorf(smriti.EFORBIDDEN, "cross-origin requests from %s are not allowed; start the server with --cors-origin to allow a named origin", textutil.Truncate(origin, 100))
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Idempotency-Key, X-Request-ID, Authorization")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true, nil
	}
	if !safeMethod(r.Method) {
		// The browser's own Sec-Fetch-Site: same-origin is believed over
		// the Host comparison, which a reverse proxy that rewrites Host
		// defeats (Go's http.CrossOriginProtection decides the same way).
		if origin != "" && !allowed && !sameOrigin(origin, r) && r.Header.Get("Sec-Fetch-Site") != "same-origin" {
			return false, smriti.Errorf(smriti.EFORBIDDEN, "cross-origin request refused: origin %s may not change data here", textutil.Truncate(origin, 100))
		}
		if origin == "" && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return false, smriti.Errorf(smriti.EFORBIDDEN, "cross-site request refused")
		}
		if err := checkContentType(r); err != nil {
			return false, err
		}
	}
	return false, nil
}

// dotSegments reports a path the router would clean and redirect
// ("/a/../b", "/a//b"): such paths name no resource here, and answering
// them with a redirect would let a crafted id steer the client elsewhere.
func dotSegments(p string) bool {
	return strings.Contains(p, "//") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") ||
		strings.Contains(p, "/./") || strings.HasSuffix(p, "/.")
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin reports whether origin names the host the request was sent to.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// checkContentType refuses a body that is not JSON. A request with no body
// needs no Content-Type, but one that names a non-JSON type is refused
// either way: an empty form post is still a cross-site form post.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	hasBody := r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
	if ct == "" && !hasBody {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	// The import routes take files (a transcript, a space bundle). Neither
	// type is one a page may send cross-site without a preflight, and the
	// preflight is refused, so they carry no CSRF risk.
	if err == nil && (mt == "application/octet-stream" || mt == "application/gzip") {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return smriti.Errorf(smriti.EUNSUPPORTEDMEDIA, "request bodies must be sent as Content-Type: application/json (got %s)", textutil.Truncate(ct, 100))
}

// checkHost refuses a Host header that does not name this server when it
// listens on a loopback address: a page on evil.example whose name has been
// rebound to 127.0.0.1 sends Host: evil.example.
func (g *browserGuard) checkHost(r *http.Request) error {
	host := strings.ToLower(r.Host)
	if g.allowedHosts[host] {
		return nil
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = strings.Trim(host, "[]")
	}
	if g.allowedHosts[name] {
		return nil
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, _ := local.(*net.TCPAddr)
	if tcp == nil || !tcp.IP.IsLoopback() {
		// Beyond loopback the listener is reached through names we cannot
		// guess; --allowed-host narrows it when given.
		if len(g.allowedHosts) == 0 {
			return nil
		}
	} else if name == "localhost" || name == "127.0.0.1" || name == "::1" {
		return nil
	}
	return smriti.Errorf(smriti.EMISDIRECTED, "host %q is not served here; add --allowed-host to serve it", textutil.Truncate(r.Host, 100))
}
