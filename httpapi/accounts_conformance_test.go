package httpapi_test

import (
	"smriti/credential"
	"testing"
)

// addConformanceUser makes the user the account steps sign in as and add to
// the scenario's space.
func addConformanceUser(t *testing.T, e *testEnv) {
	t.Helper()
	hash, err := credential.HashPassword("conformance-pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateUser(bg, "conformance", hash); err != nil {
		t.Fatal(err)
	}
}

// accountScenario is the success path of the account and membership routes
// (local mode: login works, the local user owns the space).
func accountScenario() []conformanceStep {
	return []conformanceStep{
		{method: "POST", path: "/api/v4/auth/login", body: `{"username": "conformance", "password": "conformance-pw"}`,
			capture: map[string]string{"member": "user.id"}},
		{method: "GET", path: "/api/v4/auth/me"},
		{method: "POST", path: "/api/v4/auth/tokens", body: `{"name": "ci", "scope": "read", "expires_in": "720h"}`,
			capture: map[string]string{"token": "token.id"}},
		{method: "DELETE", path: "/api/v4/auth/tokens/{token}"},
		{method: "GET", path: "/api/v4/auth/tokens"},
		{method: "PUT", path: "/api/v5/spaces/{repo}/members/{member}", body: `{"role": "viewer"}`},
		{method: "GET", path: "/api/v5/spaces/{repo}/members"},
		{method: "DELETE", path: "/api/v5/spaces/{repo}/members/{member}"},
		{method: "POST", path: "/api/v4/auth/logout"},
	}
}
