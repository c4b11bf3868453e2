package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"smriti/client"
	"smriti/httpapi"
	"smriti/store/storetest"
	"smriti/wire"
)

// The security-regression suite: one test per attack, named for it.

// send makes a request with the given headers and returns status, body and
// response headers.
func (e *testEnv) send(t *testing.T, method, path, body string, headers map[string]string) (int, string, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func spaceCount(t *testing.T, e *testEnv) int {
	t.Helper()
	return len(storetest.Get(e.c.Spaces(bg)).Must(t))
}

func TestAttackCrossOriginPreflightRefused(t *testing.T) {
	e := newEnv(t)
	status, body, h := e.send(t, "OPTIONS", "/api/v4/chat/send", "", map[string]string{
		"Origin": "https://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	if status != 403 || !strings.Contains(body, `"detail":"cross-origin requests from https://evil.example are not allowed`) {
		t.Fatalf("preflight = %d %s", status, body)
	}
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods"} {
		if v := h.Get(k); v != "" {
			t.Fatalf("%s = %q on a refused preflight", k, v)
		}
	}
	// A plain cross-origin read gets no grant, so the page cannot see it.
	status, _, h = e.send(t, "GET", "/api/v2/repos", "", map[string]string{"Origin": "https://evil.example"})
	if status != 200 || h.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("cross-origin read = %d with grant %q", status, h.Get("Access-Control-Allow-Origin"))
	}
}

func TestAttackNamedCORSOriginOnlyGetsItsOwnGrant(t *testing.T) {
	e := newEnv(t, withSecurity(httpapi.SecurityConfig{CORSOrigins: []string{"http://localhost:5173"}}))
	status, _, h := e.send(t, "OPTIONS", "/api/v2/repos", "", map[string]string{
		"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST"})
	if status != 204 || h.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || h.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("named origin preflight = %d %v", status, h)
	}
	status, _, h = e.send(t, "OPTIONS", "/api/v2/repos", "", map[string]string{
		"Origin": "null", "Access-Control-Request-Method": "POST"})
	if status != 403 || h.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("null origin preflight = %d, grant %q", status, h.Get("Access-Control-Allow-Origin"))
	}
	for _, bad := range []string{"*", "null", "localhost:5173", "http://x.example/path"} {
		if _, err := httpapi.ValidateCORSOrigin(bad); err == nil {
			t.Errorf("ValidateCORSOrigin(%q) accepted it", bad)
		}
	}
}

func TestAttackTextPlainPostRefused(t *testing.T) {
	e := newEnv(t)
	before := spaceCount(t, e)
	status, body, _ := e.send(t, "POST", "/api/v2/repos", `{"name":"planted"}`, map[string]string{"Content-Type": "text/plain"})
	if status != 415 || body != `{"detail":"request bodies must be sent as Content-Type: application/json (got text/plain)"}`+"\n" {
		t.Fatalf("text/plain POST = %d %s", status, body)
	}
	if n := spaceCount(t, e); n != before {
		t.Fatalf("spaces %d → %d after a refused POST", before, n)
	}
}

func TestAttackFormEncodedPostRefused(t *testing.T) {
	e := newEnv(t)
	before := spaceCount(t, e)
	status, body, _ := e.send(t, "POST", "/api/v2/repos", `name=planted`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if status != 415 || !strings.Contains(body, "application/x-www-form-urlencoded") {
		t.Fatalf("form POST = %d %s", status, body)
	}
	// An empty form post (a form with no fields) is refused as well.
	status, _, _ = e.send(t, "POST", "/api/v2/repos", "", map[string]string{"Content-Type": "multipart/form-data; boundary=x"})
	if status != 415 {
		t.Fatalf("empty multipart POST = %d", status)
	}
	if n := spaceCount(t, e); n != before {
		t.Fatalf("spaces %d → %d after refused POSTs", before, n)
	}
}

func TestAttackCrossSiteWriteRefusedByOrigin(t *testing.T) {
	e := newEnv(t)
	status, body, _ := e.send(t, "POST", "/api/v2/repos", `{"name":"planted"}`, map[string]string{
		"Content-Type": "application/json", "Origin": "https://evil.example"})
	if status != 403 || body != `{"detail":"cross-origin request refused: origin https://evil.example may not change data here"}`+"\n" {
		t.Fatalf("cross-site POST = %d %s", status, body)
	}
	status, _, _ = e.send(t, "DELETE", "/api/v2/repos/00000000-0000-0000-0000-000000000001", "", map[string]string{"Sec-Fetch-Site": "cross-site"})
	if status != 403 {
		t.Fatalf("cross-site DELETE without Origin = %d", status)
	}
	// The same-origin web workspace may write.
	status, _, _ = e.send(t, "POST", "/api/v2/repos", `{"name":"mine"}`, map[string]string{
		"Content-Type": "application/json", "Origin": e.url, "Sec-Fetch-Site": "same-origin"})
	if status != 201 && status != 200 {
		t.Fatalf("same-origin POST = %d", status)
	}
}

// TestSameOriginBehindAHostRewritingProxy: a reverse proxy that serves the
// workspace as https://smriti.example.org and forwards with Host: localhost
// makes Origin and Host differ; the browser's Sec-Fetch-Site: same-origin
// says the page is the server's own, so the write goes through without
// --cors-origin. Any other Sec-Fetch-Site, or none, keeps the refusal.
func TestSameOriginBehindAHostRewritingProxy(t *testing.T) {
	e := newEnv(t)
	host := "localhost:" + e.url[strings.LastIndex(e.url, ":")+1:]
	for _, site := range []string{"same-site", "cross-site", ""} {
		h := map[string]string{"Content-Type": "application/json", "Origin": "https://smriti.example.org", "Host": host}
		if site != "" {
			h["Sec-Fetch-Site"] = site
		}
		status, body, _ := e.send(t, "POST", "/api/v2/repos", `{"name":"planted"}`, h)
		if status != 403 || body != `{"detail":"cross-origin request refused: origin https://smriti.example.org may not change data here"}`+"\n" {
			t.Fatalf("Sec-Fetch-Site %q = %d %s, want 403", site, status, body)
		}
	}
	status, body, _ := e.send(t, "POST", "/api/v2/repos", `{"name":"proxied"}`, map[string]string{
		"Content-Type": "application/json", "Origin": "https://smriti.example.org", "Host": host, "Sec-Fetch-Site": "same-origin"})
	if status != 201 || !strings.Contains(body, `"name":"proxied"`) {
		t.Fatalf("same-origin through a proxy = %d %s, want 201", status, body)
	}
}

func TestAttackDNSRebindingForeignHostRefused(t *testing.T) {
	e := newEnv(t)
	port := e.url[strings.LastIndex(e.url, ":")+1:]
	status, body, _ := e.send(t, "GET", "/api/v2/repos", "", map[string]string{"Host": "evil.example:" + port})
	if status != 421 || body != `{"detail":"host \"evil.example:`+port+`\" is not served here; add --allowed-host to serve it"}`+"\n" {
		t.Fatalf("foreign Host = %d %s", status, body)
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port} {
		if status, _, _ := e.send(t, "GET", "/api/v2/repos", "", map[string]string{"Host": host}); status != 200 {
			t.Errorf("Host %s = %d, want 200", host, status)
		}
	}
	allowed := newEnv(t, withSecurity(httpapi.SecurityConfig{AllowedHosts: []string{"smriti.internal"}}))
	if status, _, _ := allowed.send(t, "GET", "/api/v2/repos", "", map[string]string{"Host": "smriti.internal:" + port}); status != 200 {
		t.Errorf("--allowed-host name = %d, want 200", status)
	}
}

func TestAttackSlowBodyDropped(t *testing.T) {
	e := newEnv(t, withSecurity(httpapi.SecurityConfig{BodyReadTimeout: 300 * time.Millisecond}))
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v2/repos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte at a time, slower than any honest client
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a slow body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || string(body) != `{"detail":"the request body arrived too slowly: it must arrive within 300ms"}`+"\n" {
		t.Fatalf("slow body = %d %s", resp.StatusCode, body)
	}
	if n := spaceCount(t, e); n != 0 {
		t.Fatalf("a dropped body created %d spaces", n)
	}
}

// TestAttackNeverReadingStreamClientDropped: a client opens a stream and
// never reads it. The server's writes stall, the per-write deadline drops
// the client, the upstream call is cancelled, and nothing is stored.
func TestAttackNeverReadingStreamClientDropped(t *testing.T) {
	var cancelled atomic.Bool
	chunk := strings.Repeat("x", 8192)
	upstream := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}`+"\n\n", chunk)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				cancelled.Store(true)
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	e := newEnv(t, withProviderEnv(map[string]string{"OPENAI_API_KEY": "sk-test-secret-key", "OPENAI_BASE_URL": upstream.URL}),
		withSecurity(httpapi.SecurityConfig{StreamWriteTimeout: 300 * time.Millisecond}))
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o")).Must(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	body := fmt.Sprintf(`{"session_id":%q,"message":"hello","provider":"openai","model":"gpt-4o"}`, se.ID)
	fmt.Fprintf(conn, "POST /api/v5/chat/send/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Never read from conn.
	deadline := time.Now().Add(20 * time.Second)
	for !cancelled.Load() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !cancelled.Load() {
		t.Fatal("the upstream call of a client that never reads was not cancelled")
	}
	time.Sleep(200 * time.Millisecond)
	if turns := storetest.Get(e.c.Turns(bg, se.ID)).Must(t); len(turns) != 0 {
		t.Fatalf("a dropped stream stored %d turns", len(turns))
	}
}

func TestStreamsSendKeepAliveComments(t *testing.T) {
	release := make(chan struct{})
	upstream := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	e := newEnv(t, withProviderEnv(map[string]string{"OPENAI_API_KEY": "sk-test-secret-key", "OPENAI_BASE_URL": upstream.URL}),
		withSecurity(httpapi.SecurityConfig{StreamKeepAlive: 50 * time.Millisecond}))
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o")).Must(t)
	req, _ := http.NewRequest("POST", e.url+"/api/v5/chat/send/stream",
		strings.NewReader(fmt.Sprintf(`{"session_id":%q,"message":"hello","provider":"openai","model":"gpt-4o"}`, se.ID)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	defer close(release)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == ": keep-alive" {
			return
		}
	}
	t.Fatalf("no keep-alive comment on a quiet stream: %v", sc.Err())
}

func TestClientSendsJSONAndTheTokenFromSMRITI_TOKEN(t *testing.T) {
	t.Setenv("SMRITI_TOKEN", "smriti-test-token")
	var auth, ctype string
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		auth, ctype = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"00000000-0000-0000-0000-000000000001","name":"x"}`))
	})
	if _, err := client.NewClient(srv.URL).CreateSpace(bg, wire.SpaceCreateRequest{Name: new("x"), Description: new("")}); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer smriti-test-token" || ctype != "application/json" {
		t.Fatalf("Authorization %q, Content-Type %q", auth, ctype)
	}
}

func TestAttackStreamFloodCappedWith429(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	upstream := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		started <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	e := newEnv(t, withProviderEnv(map[string]string{"OPENAI_API_KEY": "sk-test-secret-key", "OPENAI_BASE_URL": upstream.URL}),
		withSecurity(httpapi.SecurityConfig{MaxStreams: 1}))
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "openai", "gpt-4o")).Must(t)
	body := fmt.Sprintf(`{"session_id":%q,"message":"hello","provider":"openai","model":"gpt-4o"}`, se.ID)
	req, _ := http.NewRequest("POST", e.url+"/api/v5/chat/send/stream", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	first, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	defer close(release)
	<-started
	status, resp, h := e.send(t, "POST", "/api/v5/chat/send/stream", body, map[string]string{"Content-Type": "application/json"})
	if status != 429 || h.Get("Retry-After") != "1" || resp != `{"detail":"too many streams open at once (limit 1); retry shortly"}`+"\n" {
		t.Fatalf("second stream = %d (Retry-After %q) %s", status, h.Get("Retry-After"), resp)
	}
}
