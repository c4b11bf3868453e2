package httpapi_test

import (
	"database/sql"
	"io"
	"net/http"
	"strings"
	"testing"

	"smriti"
	"smriti/httpapi"
	"smriti/store/storetest"
)

// rawHeader is raw with the answer's headers.
func (e *testEnv) rawHeader(t *testing.T, method, path, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const unavailableBody = `{"detail":"the database is unavailable right now; try again shortly"}` + "\n"

// A database that goes away (connections refused and broken) or turns
// read-only (a demoted primary) answers 503 with Retry-After and a plain
// detail, never 500; when it is back, the same server serves again without
// a restart.
func TestDatabaseFailuresAnswer503WithRetryAfter(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	proxy, via := storetest.NewProxy(t, dsn)
	e := newEnvOn(t, via)
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	send := `{"session_id":"` + se.ID.String() + `","message":"hello"}`
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send before the cut: %d %s", status, body)
	}

	proxy.Cut()
	for _, r := range [][3]string{
		{"POST", "/api/v4/chat/send", send},
		{"GET", "/api/v4/chat/sessions/" + se.ID.String(), ""},
		{"POST", "/api/v2/repos", `{"name":"while away"}`},
	} {
		status, h, body := e.rawHeader(t, r[0], r[1], r[2])
		if status != 503 || h.Get("Retry-After") != "2" || body != unavailableBody {
			t.Errorf("%s %s with the database away: %d Retry-After %q %s, want 503 Retry-After 2 %s", r[0], r[1], status, h.Get("Retry-After"), body, unavailableBody)
		}
	}
	// The project's client reads it back as the same error.
	_, err := e.c.Send(bg, httpapi.SendRequest{SessionID: strp(se.ID.String()), Message: strp("again")}, "")
	wantCode(t, err, smriti.ETRYAGAIN)

	proxy.Restore()
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send after the database came back: %d %s", status, body)
	}

	// Read-only, as a primary demoted by a failover is.
	base, _, _ := strings.Cut(dsn, "?")
	name := base[strings.LastIndex(base, "/")+1:]
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("ALTER DATABASE " + name + " SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	proxy.Cut() // the server's connections go; new ones start read-only
	proxy.Restore()
	status, h, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send)
	if status != 503 || h.Get("Retry-After") != "2" || body != unavailableBody {
		t.Errorf("send to a read-only database: %d Retry-After %q %s, want 503 Retry-After 2 %s", status, h.Get("Retry-After"), body, unavailableBody)
	}
	if _, err := admin.Exec("ALTER DATABASE " + name + " RESET default_transaction_read_only"); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	proxy.Restore()
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send once writable again: %d %s", status, body)
	}
	turns := storetest.Get(e.store.Turns(smriti.WithUser(bg, smriti.LocalUserID), se.ID, smriti.TurnQuery{})).Must(t)
	if len(turns) != 6 {
		t.Errorf("the session holds %d turns, want 6 (three acknowledged sends, nothing else)", len(turns))
	}
}
