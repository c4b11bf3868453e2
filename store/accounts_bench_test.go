package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/account"
	"smriti/credential"
	"smriti/store"
	"smriti/store/storetest"
)

// BenchmarkTokenPrincipal is the token check every request in auth mode
// makes: hash the presented secret, one indexed read, the usability rules.
//
//	go test -run '^$' -bench TokenPrincipal -benchmem ./store/
func BenchmarkTokenPrincipal(b *testing.B) {
	for _, eng := range []string{"SQLite", "Postgres"} {
		b.Run(eng, func(b *testing.B) {
			dsn := filepath.Join(b.TempDir(), "bench.db")
			if eng == "Postgres" {
				dsn = storetest.PostgresDSN(b)
			}
			s, err := store.Open(context.Background(), dsn, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			u, err := s.CreateUser(ctx, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			secret, hash, _ := credential.NewSecret()
			tok := &account.APIToken{ID: smriti.NewID(), UserID: u.ID, Scope: account.ScopeWrite, CreatedAt: s.Now()}
			if err := s.CreateToken(ctx, tok, hash); err != nil {
				b.Fatal(err)
			}
			now := s.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := s.TokenPrincipal(ctx, credential.HashSecret(secret), now)
				if err != nil || p.UserID != u.ID {
					b.Fatal(p, err)
				}
			}
		})
	}
}
