package httpapi_test

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
	"smriti/wire"
)

// rawHeader is raw with the answer's headers.
func (e *testEnv) rawHeader(t *testing.T, method, path, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
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
	wantHealth(t, e, 503, "the database does not answer: connection failed", false, false)
	// The project's client reads it back as the same error.
	_, err := e.c.Send(bg, wire.SendRequest{SessionID: strp(se.ID.String()), Message: strp("again")}, "")
	wantCode(t, err, smriti.ETRYAGAIN)

	proxy.Restore()
	wantHealth(t, e, 200, "", true, true)
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
	// The server's connections go (as they do in a failover); new ones
	// start read-only.
	proxy.Cut()
	proxy.Restore()
	e.store.ReleaseMemory(bg)
	status, h, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send)
	if status != 503 || h.Get("Retry-After") != "2" || body != unavailableBody {
		t.Errorf("send to a read-only database: %d Retry-After %q %s, want 503 Retry-After 2 %s", status, h.Get("Retry-After"), body, unavailableBody)
	}
	wantHealth(t, e, 503, "the database cannot be written: it is a standby or read-only", true, false)
	if _, err := admin.Exec("ALTER DATABASE " + name + " RESET default_transaction_read_only"); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	proxy.Restore()
	e.store.ReleaseMemory(bg)
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send once writable again: %d %s", status, body)
	}
	turns := storetest.Get(e.store.Turns(smriti.WithUser(bg, smriti.LocalUserID), se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 6 {
		t.Errorf("the session holds %d turns, want 6 (three acknowledged sends, nothing else)", len(turns))
	}
}

// latestMigration is the newest migration's number.
func latestMigration(t *testing.T) int64 {
	files, err := filepath.Glob("../store/migrations/postgres/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v", err)
	}
	sort.Strings(files)
	n, err := strconv.ParseInt(strings.SplitN(filepath.Base(files[len(files)-1]), "_", 2)[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wantHealth checks the three health routes: live is always 200, ready and
// /health answer status (with problem and the two checks) together.
func wantHealth(t *testing.T, e *testEnv, status int, problem string, reachable, writable bool) {
	t.Helper()
	if code, _, body := e.rawHeader(t, "GET", "/health/live", ""); code != 200 || body != `{"status":"ok"}`+"\n" {
		t.Errorf("/health/live: %d %s", code, body)
	}
	code, _, body := e.rawHeader(t, "GET", "/health/ready", "")
	var r wire.Readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("/health/ready: %d %s", code, body)
	}
	wantStatus, version := "ready", latestMigration(t)
	if status != 200 {
		wantStatus = "not_ready"
	}
	if !reachable {
		version = 0
	}
	if code != status || r.Status != wantStatus || r.Problem != problem || r.Reachable != reachable || r.Writable != writable ||
		r.MigrationVersion != version || r.Database != e.store.Engine() || r.Pool.Max != 20 {
		t.Errorf("/health/ready: %d %s, want %d status %s problem %q reachable %v writable %v migration %d pool max 20",
			code, body, status, wantStatus, problem, reachable, writable, version)
	}
	code, _, body = e.rawHeader(t, "GET", "/health", "")
	var h wire.Health
	json.Unmarshal([]byte(body), &h)
	wantShape := "ok"
	if status != 200 {
		wantShape = "degraded"
	}
	if code != status || h.Status != wantShape || h.Version != "test" || len(h.Capabilities) == 0 {
		t.Errorf("/health: %d %s, want %d status %s", code, body, status, wantShape)
	}
}

func TestHealthLiveAndReadySQLite(t *testing.T) {
	e := newEnv(t)
	code, _, body := e.rawHeader(t, "GET", "/health/ready", "")
	var r wire.Readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if code != 200 || r.Status != "ready" || !r.Reachable || !r.Writable || r.Problem != "" || r.Database != "sqlite" ||
		r.MigrationVersion != latestMigration(t) || r.Pool.Max != 8 {
		t.Errorf("/health/ready on SQLite: %d %s", code, body)
	}
}

// A database that stops answering (frozen, or the network gone quiet)
// holds no request longer than the store's timeout: it answers 503 with
// Retry-After, readiness says the database does not answer, and once it
// answers again the same server serves again.
func TestFrozenDatabaseAnswers503(t *testing.T) {
	proxy, via := storetest.NewProxy(t, storetest.PostgresDSN(t))
	e := startEnv(t, via, envConfig{getenv: func(string) string { return "" }, storeOpts: store.Options{Timeout: 300 * time.Millisecond}})
	se := storetest.Get(e.c.CreateSession(bg, nil, "", "mock", "")).Must(t)
	send := `{"session_id":"` + se.ID.String() + `","message":"hello"}`
	acked := 0
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send before the freeze: %d %s", status, body)
	}
	acked++

	proxy.Freeze()
	status, h, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send)
	if status != 503 || h.Get("Retry-After") != "2" || body != unavailableBody {
		t.Errorf("send to a frozen database: %d Retry-After %q %s, want 503 Retry-After 2 %s", status, h.Get("Retry-After"), body, unavailableBody)
	}
	code, _, body := e.rawHeader(t, "GET", "/health/ready", "")
	var r wire.Readiness
	json.Unmarshal([]byte(body), &r)
	if code != 503 || r.Reachable || r.Problem != "the database does not answer: connection failed" {
		t.Errorf("/health/ready with the database frozen: %d %s", code, body)
	}
	if code, _, body := e.rawHeader(t, "GET", "/health/live", ""); code != 200 {
		t.Errorf("/health/live with the database frozen: %d %s", code, body)
	}

	proxy.Thaw()
	if status, _, body := e.rawHeader(t, "POST", "/api/v4/chat/send", send); status != 200 {
		t.Fatalf("send after the database answers again: %d %s", status, body)
	}
	acked++
	turns := storetest.Get(e.store.Turns(smriti.WithUser(bg, smriti.LocalUserID), se.ID, contract.TurnQuery{})).Must(t)
	if len(turns) != 2*acked {
		t.Errorf("the session holds %d turns, want %d (the acknowledged sends only)", len(turns), 2*acked)
	}
}
