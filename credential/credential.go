// Package credential hashes and checks passwords (argon2id), states the
// password rule, and makes the secrets of API tokens and browser sessions
// (kept only as their hashes). It imports the domain only.
package credential

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"smriti"
	"strings"

	"golang.org/x/crypto/argon2"
)

// ValidatePassword checks a new password's length.
func ValidatePassword(pw string) error {
	if n := len([]rune(pw)); n < minPasswordLen || len(pw) > 1024 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "password: must be %d to 1024 characters", minPasswordLen)
	}
	return nil
}

// argon2id parameters: OWASP's minimum (19 MiB, two passes, one lane),
// which keeps a login near a few tens of milliseconds, so concurrent logins
// cannot exhaust a small server's memory. The parameters travel in each
// hash, so raising them later leaves old hashes valid.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns the argon2id hash of pw in the PHC string form.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether pw matches hash (from HashPassword). An empty
// or malformed hash never matches.
func CheckPassword(hash, pw string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var mem, iters uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iters, &threads); err != nil || mem > 1<<21 || iters > 64 || threads == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, iters, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// minPasswordLen is the shortest password a user may set.
const minPasswordLen = 8
