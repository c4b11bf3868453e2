package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// tokenPrefix marks Smriti secrets so they are recognisable in a leak scan.
const tokenPrefix = "smriti_"

// NewSecret returns a fresh 256-bit secret (for an API token or a browser
// session) and the hash under which it is stored.
func NewSecret() (secret, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("new secret: %w", err)
	}
	secret = tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, HashSecret(secret), nil
}

// HashSecret returns the stored form of a secret: hex SHA-256.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
