package httpapi

import (
	"smriti/account"
	"testing"
	"time"

	"smriti"
)

// TestCredentialCacheNeverOutlivesItsCredential: a cached credential is
// asked for again after the TTL, at once after clear, and never trusted past
// its own expiry; failures are not cached; a negative TTL turns caching off.
func TestCredentialCacheNeverOutlivesItsCredential(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lookups := 0
	var answer *account.Principal
	var fail error
	lookup := func(hash string) (*account.Principal, error) {
		if hash != "h" {
			t.Fatalf("lookup got %q, want the hash without its kind letter", hash)
		}
		lookups++
		return answer, fail
	}
	c := newCredCache(0)
	if c.ttl != DefaultCredentialCacheTTL {
		t.Fatalf("default ttl = %v", c.ttl)
	}
	answer = &account.Principal{UserID: smriti.NewID(), Scope: account.ScopeRead}
	for _, at := range []time.Duration{0, time.Second, DefaultCredentialCacheTTL - time.Nanosecond} {
		if p, err := c.resolve("th", t0.Add(at), lookup); err != nil || p != answer {
			t.Fatalf("resolve at +%v = %v, %v", at, p, err)
		}
	}
	if lookups != 1 {
		t.Fatalf("lookups within the TTL = %d, want 1", lookups)
	}
	c.resolve("th", t0.Add(DefaultCredentialCacheTTL), lookup)
	if lookups != 2 {
		t.Fatalf("lookups at the TTL = %d, want 2", lookups)
	}
	c.clear()
	c.resolve("th", t0.Add(DefaultCredentialCacheTTL), lookup)
	if lookups != 3 {
		t.Fatalf("lookups after clear = %d, want 3", lookups)
	}

	// A credential expiring within the TTL is asked for again at its expiry.
	c = newCredCache(time.Hour)
	exp := t0.Add(time.Second)
	answer = &account.Principal{UserID: smriti.NewID(), Expires: &exp}
	lookups = 0
	c.resolve("th", t0, lookup)
	c.resolve("th", exp.Add(-time.Nanosecond), lookup)
	answer, fail = nil, account.ErrBadCredentials()
	if _, err := c.resolve("th", exp, lookup); smriti.ErrorCode(err) != smriti.EUNAUTHORIZED || lookups != 2 {
		t.Fatalf("at expiry: err %v, lookups %d; want EUNAUTHORIZED after 2 lookups", err, lookups)
	}
	c.resolve("th", exp, lookup)
	if lookups != 3 {
		t.Fatalf("a failure was cached: lookups %d, want 3", lookups)
	}

	c = newCredCache(-1)
	answer, fail, lookups = &account.Principal{}, nil, 0
	c.resolve("th", t0, lookup)
	c.resolve("th", t0, lookup)
	if lookups != 2 {
		t.Fatalf("with the cache off lookups = %d, want 2", lookups)
	}
}
