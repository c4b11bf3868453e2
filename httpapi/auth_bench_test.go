package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/account"
	"smriti/app"
	"smriti/credential"
	"smriti/httpapi"
	"smriti/internal/clock"
	"smriti/provider"
	"smriti/store"
)

// Auth benchmarks, server time only (the handler called directly, on a real
// SQLite file):
//
//	go test -run '^$' -bench 'Auth|Login' -benchmem ./httpapi/
//
// BenchmarkAuthPerRequest runs GET /api/v4/auth/me (no store work of its
// own) in local mode and with each credential; the difference from local is
// the per-request cost of resolving the principal ("token" mostly hits the
// credential cache; "token-uncached" reads the database every time).

func newAuthBench(b *testing.B, enabled bool, cacheTTL ...time.Duration) (http.Handler, *store.Store, *account.User) {
	b.Helper()
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cfg, _ := provider.Load(provider.LoadOptions{})
	hash, err := credential.HashPassword(testPassword)
	if err != nil {
		b.Fatal(err)
	}
	u, err := st.CreateUser(context.Background(), "bench", hash)
	if err != nil {
		b.Fatal(err)
	}
	ac := httpapi.AuthConfig{Enabled: enabled}
	if len(cacheTTL) > 0 {
		ac.CredentialCacheTTL = cacheTTL[0]
	}
	h := httpapi.New(httpapi.Config{Backend: st, App: app.New(app.Config{Store: st, Providers: provider.New(cfg)}), Auth: ac})
	return h, st, u
}

func serveBench(b *testing.B, h http.Handler, req func() *http.Request, want int) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req())
		if rec.Code != want {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

func BenchmarkAuthPerRequest(b *testing.B) {
	me := func(header, value string) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest("GET", "http://127.0.0.1/api/v4/auth/me", nil)
			r.Host = "127.0.0.1"
			if header != "" {
				r.Header.Set(header, value)
			}
			return r
		}
	}
	b.Run("local", func(b *testing.B) {
		h, _, _ := newAuthBench(b, false)
		serveBench(b, h, me("", ""), 200)
	})
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"token", 0}, {"token-uncached", -1}} {
		b.Run(c.name, func(b *testing.B) {
			h, st, u := newAuthBench(b, true, c.ttl)
			tok := &account.APIToken{ID: smriti.NewID(), UserID: u.ID, Scope: account.ScopeRead, CreatedAt: clock.Now()}
			secret, hash, _ := credential.NewSecret()
			if err := st.CreateToken(context.Background(), tok, hash); err != nil {
				b.Fatal(err)
			}
			serveBench(b, h, me("Authorization", "Bearer "+secret), 200)
		})
	}
	b.Run("session", func(b *testing.B) {
		h, st, u := newAuthBench(b, true)
		secret, hash, _ := credential.NewSecret()
		if err := st.CreateBrowserSession(context.Background(), hash, u.ID, clock.Now().Add(httpapi.DefaultSessionTTL)); err != nil {
			b.Fatal(err)
		}
		serveBench(b, h, me("Cookie", httpapi.SessionCookie+"="+secret), 200)
	})
	b.Run("rejected", func(b *testing.B) {
		h, _, _ := newAuthBench(b, true)
		serveBench(b, h, me("Authorization", "Bearer smriti_unknown"), 401)
	})
}

// BenchmarkLogin is a whole browser login: argon2id (deliberately slow)
// plus the session row.
func BenchmarkLogin(b *testing.B) {
	h, _, _ := newAuthBench(b, true)
	serveBench(b, h, func() *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1/api/v4/auth/login", strings.NewReader(`{"username": "bench", "password": "`+testPassword+`"}`))
		r.Host = "127.0.0.1"
		r.Header.Set("Content-Type", "application/json")
		return r
	}, 200)
}
