package credential

import (
	"encoding/hex"
	"strings"
	"testing"
)

func TestPasswords(t *testing.T) {
	for pw, ok := range map[string]bool{"short": false, "1234567": false, "12345678": true, "ééééééé": false, "éééééééé": true,
		strings.Repeat("p", 1024): true, strings.Repeat("p", 1025): false} {
		if err := ValidatePassword(pw); (err == nil) != ok {
			t.Errorf("ValidatePassword(%d runes) = %v, want ok %v", len([]rune(pw)), err, ok)
		}
	}
	h1, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse")
	if h1 == h2 || !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hashes %q and %q: want argon2id with a fresh salt each", h1, h2)
	}
	parts := strings.Split(h1, "$")
	for _, tc := range []struct {
		hash, pw string
		ok       bool
	}{
		{h1, "correct horse", true},
		{h2, "correct horse", true},
		{h1, "correct horsE", false},
		{h1, "", false},
		{"", "correct horse", false},
		{"$bcrypt$" + strings.Join(parts[2:], "$"), "correct horse", false},
		{strings.Join(append(parts[:2:2], "v=18", parts[3], parts[4], parts[5]), "$"), "correct horse", false},
		// Parameters an attacker could raise to exhaust the server.
		{strings.Join(append(parts[:3:3], "m=4194304,t=2,p=1", parts[4], parts[5]), "$"), "correct horse", false},
		{strings.Join(append(parts[:3:3], "m=19456,t=65,p=1", parts[4], parts[5]), "$"), "correct horse", false},
		{strings.Join(append(parts[:3:3], "m=19456,t=2,p=0", parts[4], parts[5]), "$"), "correct horse", false},
		{strings.Join(append(parts[:5:5], ""), "$"), "correct horse", false},
		{strings.Join(append(parts[:4:4], "!!", parts[5]), "$"), "correct horse", false},
	} {
		if got := CheckPassword(tc.hash, tc.pw); got != tc.ok {
			t.Errorf("CheckPassword(%q, %q) = %v, want %v", tc.hash, tc.pw, got, tc.ok)
		}
	}
}

func TestSecrets(t *testing.T) {
	s1, h1, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	s2, h2, _ := NewSecret()
	if s1 == s2 || h1 == h2 {
		t.Fatal("two secrets alike")
	}
	if !strings.HasPrefix(s1, "smriti_") || len(s1) != len("smriti_")+43 {
		t.Errorf("secret %q: want smriti_ and 43 characters of URL-safe base64 (32 random bytes)", s1)
	}
	if b, err := hex.DecodeString(h1); err != nil || len(b) != 32 || h1 != HashSecret(s1) {
		t.Errorf("hash %q: want the hex SHA-256 of the secret", h1)
	}
	if got, want := HashSecret("smriti_x"), "4ae24052e8b5709bdb3ed7dcf5564bd3c793af6a3b9a9b30d8f6f400a05edc22"; got != want {
		t.Errorf("HashSecret(smriti_x) = %q, want %q (sha256sum of the secret)", got, want)
	}
}
