package httpapi_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"smriti/account"
	"smriti/httpapi"
)

// TestAttackPasswordGuessingAnswers429: ten attempts on one name, then the
// name is refused (even with the right password) with Retry-After; one
// address may spend thirty attempts across names, then every name is
// refused from it.
func TestAttackPasswordGuessingAnswers429(t *testing.T) {
	// An hour between refills: no attempt comes back while the test runs,
	// however slow the machine.
	e := newEnv(t, withAuth(httpapi.AuthConfig{LoginRefill: time.Hour}))
	e.newAccount(t, "alice", account.ScopeRead)
	e.newAccount(t, "bob", account.ScopeRead)
	wantRefused := func(user, password string) {
		t.Helper()
		resp, body := login(t, e, user, password)
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != 429 || ra < 3000 || ra > 3600 || body != fmt.Sprintf(`{"detail":"too many sign-in attempts; retry in %d s"}`+"\n", ra) {
			t.Fatalf("login %s past the allowance: %d %q %s", user, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	for i := 0; i < 10; i++ {
		if resp, body := login(t, e, "alice", "guess "+strconv.Itoa(i)); resp.StatusCode != 401 {
			t.Fatalf("guess %d: %d %s", i, resp.StatusCode, body)
		}
	}
	wantRefused("alice", testPassword)
	wantRefused("ALICE", testPassword) // names are counted case-insensitively
	// Another name from the same address still has its own allowance.
	if resp, body := login(t, e, "bob", testPassword); resp.StatusCode != 200 {
		t.Fatalf("bob: %d %s", resp.StatusCode, body)
	}
	// 11 attempts spent from this address; 19 more across fresh names use
	// up its 30, then even a fresh name is refused.
	for i := 0; i < 19; i++ {
		if resp, body := login(t, e, "nobody"+strconv.Itoa(i), "x"); resp.StatusCode != 401 {
			t.Fatalf("nobody%d: %d %s", i, resp.StatusCode, body)
		}
	}
	wantRefused("carol", "x")
}
