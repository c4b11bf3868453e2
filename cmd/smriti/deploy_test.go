package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"smriti/client"
	"smriti/httpapi"
	"smriti/wire"
)

// TestSystemdUnitsVerify runs systemd-analyze verify on deploy/'s units,
// with the binary's path pointed at one that exists (verify checks it).
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (Debian: systemd); the units are unchecked here")
	}
	dir := t.TempDir()
	units := []string{"smriti.service", "smriti-backup.service", "smriti-backup.timer"}
	for _, u := range units {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", u))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, u), []byte(strings.ReplaceAll(string(b), "/usr/local/bin/smriti", "/bin/true")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(analyze, append([]string{"verify"}, units...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	unit, _ := os.ReadFile(filepath.Join(dir, "smriti.service"))
	for _, want := range []string{"DynamicUser=yes", "StateDirectory=smriti", "ProtectSystem=strict", "NoNewPrivileges=yes"} {
		if !strings.Contains(string(unit), "\n"+want+"\n") {
			t.Errorf("smriti.service lacks %s", want)
		}
	}
}

// TestBehindNginx runs `smriti serve` with the flags deploy/smriti.service
// documents (auth mode, --allowed-host, --secure-cookie) on 127.0.0.1, and
// Debian's nginx with deploy/nginx-smriti.conf in front of it (its listen
// ports and certificate moved to temporary ones), then talks HTTPS to the
// proxy as a browser and as an API client would.
func TestBehindNginx(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/nginx"); e != nil {
			t.Skip("nginx not installed (Debian: apt-get install nginx-light); the proxy example is unchecked here")
		}
		nginx = "/usr/sbin/nginx"
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "smriti.db")
	const host = "smriti.example.com"
	runOK(t, bin, "correct horse battery\n", "user", "add", "alice", "--db", db)
	var tok wire.TokenCreated
	if err := json.Unmarshal([]byte(runOK(t, bin, "", "token", "create", "--user", "alice", "--scope", "write", "--json", "--db", db)), &tok); err != nil {
		t.Fatal(err)
	}

	// The server, with the unit's ExecStart flags.
	backend := freeAddr(t)
	args := unitServeArgs(t, backend, db, filepath.Join(dir, "none.yaml"))
	srv := exec.Command(bin, args...)
	srv.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENROUTER_API_KEY=", "SMRITI_GENERIC_API_URL=")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()

	// The proxy, with the example's server blocks.
	certFile, keyFile, pool := selfSigned(t, dir, host)
	httpsAddr, httpAddr := freeAddr(t), freeAddr(t)
	example, err := os.ReadFile(filepath.Join("..", "..", "deploy", "nginx-smriti.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(example)
	for _, r := range []struct{ re, to string }{
		{`(?m)^\s*listen \[::\].*$`, ""},
		{`listen 80;`, "listen " + httpAddr + ";"},
		{`listen 443 ssl http2;`, "listen " + httpsAddr + " ssl http2;"},
		{`ssl_certificate\s+\S+;`, "ssl_certificate " + certFile + ";"},
		{`ssl_certificate_key\s+\S+;`, "ssl_certificate_key " + keyFile + ";"},
		{`proxy_pass http://127\.0\.0\.1:8000;`, "proxy_pass http://" + backend + ";"},
	} {
		re := regexp.MustCompile(r.re)
		if !re.MatchString(conf) {
			t.Fatalf("deploy/nginx-smriti.conf no longer has %s", r.re)
		}
		conf = re.ReplaceAllString(conf, r.to)
	}
	main := "daemon off;\nworker_processes 1;\npid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log;\nevents {}\nhttp {\n" +
		"access_log off;\nclient_body_temp_path " + dir + "/body;\nproxy_temp_path " + dir + "/proxy;\n" +
		"fastcgi_temp_path " + dir + "/fcgi;\nuwsgi_temp_path " + dir + "/uwsgi;\nscgi_temp_path " + dir + "/scgi;\n" + conf + "\n}\n"
	if os.Geteuid() == 0 {
		main = "user root;\n" + main
	}
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(nginx, "-t", "-p", dir, "-c", filepath.Join(dir, "nginx.conf")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	proxy := exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { proxy.Process.Signal(syscall.SIGQUIT); proxy.Wait() }()

	// A client that resolves the example's name to the local proxy and
	// trusts its certificate.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case host + ":443":
			addr = httpsAddr
		case host + ":80":
			addr = httpAddr
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	hc := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	waitFor(t, func() error {
		resp, err := hc.Get("https://" + host + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				err = &statusError{resp.StatusCode}
			}
		}
		return err
	})

	t.Run("PlainHTTPRedirectsToHTTPS", func(t *testing.T) {
		resp, err := hc.Get("http://" + host + "/api/v2/repos")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 301 || resp.Header.Get("Location") != "https://"+host+"/api/v2/repos" {
			t.Fatalf("plain HTTP = %d to %q, want 301 to https", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("NoCredentialsIs401", func(t *testing.T) {
		resp, err := hc.Get("https://" + host + "/api/v2/repos")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Detail string }
		json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != 401 || body.Detail == "" {
			t.Fatalf("no token = %d %q, want 401 with a detail", resp.StatusCode, body.Detail)
		}
	})
	t.Run("TokenWritesThroughTheProxy", func(t *testing.T) {
		c := client.NewClient("https://" + host)
		c.HTTP = hc
		c.Header = http.Header{"Authorization": {"Bearer " + tok.Secret}}
		ctx := context.Background()
		sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: new("Behind the proxy"), Description: new("")})
		if err != nil {
			t.Fatal(err)
		}
		se, err := c.CreateSession(ctx, &sp.ID, "", "mock", "")
		if err != nil {
			t.Fatal(err)
		}
		msg := "hello through nginx"
		events := 0
		res, err := c.SendStream(ctx, wire.SendRequest{SessionID: ptr(se.ID.String()), Message: &msg, Provider: "mock"}, func(client.StreamEvent) { events++ })
		if err != nil || res == nil || events == 0 {
			t.Fatalf("streamed send through the proxy = %+v, %d events, %v", res, events, err)
		}
		turns, err := c.AllTurns(ctx, se.ID)
		if err != nil || len(turns) != 2 || turns[0].Content != msg {
			t.Fatalf("turns = %+v, %v; want the user turn and the reply", turns, err)
		}
	})
	t.Run("BrowserLoginGetsASecureCookie", func(t *testing.T) {
		req, _ := http.NewRequest("POST", "https://"+host+"/api/v4/auth/login", strings.NewReader(`{"username":"alice","password":"correct horse battery"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "https://"+host)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("login through the proxy = %d, want 200", resp.StatusCode)
		}
		var cookie *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == httpapi.SessionCookie {
				cookie = c
			}
		}
		if cookie == nil || !cookie.Secure || !cookie.HttpOnly {
			t.Fatalf("session cookie = %+v, want Secure and HttpOnly", cookie)
		}
	})
	t.Run("OtherHostRefused", func(t *testing.T) {
		// Straight to the backend with a Host it was not given: the
		// --allowed-host list is what lets the proxy's name in.
		req, _ := http.NewRequest("GET", "http://"+backend+"/api/v2/repos", nil)
		req.Host = "evil.example"
		req.Header.Set("Authorization", "Bearer "+tok.Secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Fatalf("Host evil.example = %d, want a 4xx refusal", resp.StatusCode)
		}
	})
}

// unitServeArgs reads ExecStart of deploy/smriti.service and returns its
// arguments with --addr, --db and --config moved to the test's own.
func unitServeArgs(t *testing.T, addr, db, config string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "smriti.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(b), "\\\n", " ")
	var fields []string
	for _, line := range strings.Split(unit, "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			fields = strings.Fields(v)
		}
	}
	if len(fields) < 2 || fields[0] != "/usr/local/bin/smriti" || fields[1] != "serve" {
		t.Fatalf("ExecStart = %q, want /usr/local/bin/smriti serve …", fields)
	}
	args := fields[1:]
	for i := 0; i < len(args)-1; i++ {
		switch args[i] {
		case "--addr":
			args[i+1] = addr
		case "--db":
			args[i+1] = db
		case "--config":
			args[i+1] = config
		}
	}
	for _, want := range []string{"--auth", "--allowed-host"} {
		if !strings.Contains(strings.Join(args, " "), want) {
			t.Fatalf("ExecStart lacks %s", want)
		}
	}
	return append(args, "--env-file", "")
}

// selfSigned writes a certificate and key for host into dir and returns
// their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir, host string) (string, string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile, pool
}

type statusError struct{ code int }

func (e *statusError) Error() string { return http.StatusText(e.code) }

// waitFor retries fn until it succeeds, for up to 15 s.
func waitFor(t *testing.T, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 15 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
