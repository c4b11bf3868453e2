package secrets

import (
	"fmt"
	"smriti/secrets/secretstest"
	"strings"
	"testing"
)

func TestCredentialCorpusIsRedacted(t *testing.T) {
	creds := secretstest.FakeCredentials(6)
	formats := map[string]bool{}
	missed := 0
	for _, c := range creds {
		formats[c.Format] = true
		got, fs := Redact(c.Text)
		if strings.Contains(got, c.Secret) || len(fs) == 0 {
			missed++
			t.Logf("missed %s: %q -> %q", c.Format, c.Text, got)
		}
	}
	recall := float64(len(creds)-missed) / float64(len(creds))
	t.Logf("%d formats, %d credentials, %d missed, recall %.1f%%", len(formats), len(creds), missed, 100*recall)
	if len(formats) < 20 {
		t.Errorf("corpus has %d formats, want at least 20", len(formats))
	}
	if recall < 0.95 {
		t.Errorf("recall %.3f, want at least 0.95", recall)
	}
}

func TestOrdinaryMessagesAreUntouched(t *testing.T) {
	msgs := secretstest.OrdinaryMessages()
	if len(msgs) < 500 {
		t.Fatalf("corpus has %d messages, want at least 500", len(msgs))
	}
	n := 0
	for _, m := range msgs {
		if got, fs := Redact(m); len(fs) != 0 || got != m {
			n++
			t.Errorf("redacted an ordinary message (%v): %q -> %q", fs, m, got)
		}
	}
	t.Logf("%d ordinary messages, %d rewritten", len(msgs), n)
}

// denseMessage is 2 KB of settings and identifiers whose names sound like
// secrets, one per line: the worst case for the assignment rules.
// proseMessage is 2 KB of the common case: a chat message about a bug, with
// a command, a stack trace and a few identifiers.
var (
	denseMessage = func() string {
		var b strings.Builder
		for _, m := range secretstest.OrdinaryMessages() {
			if b.Len()+len(m)+1 > 2048 {
				break
			}
			b.WriteString(m)
			b.WriteByte('\n')
		}
		return b.String()
	}()
	// worstMessage is 30 lines, about 2 KB, of a secret-sounding name and a
	// value long enough for the assignment rules to run on it, none a
	// secret: every line wakes them. keysMessage is the same with every
	// other value a high-entropy token, which generic-api-key reports:
	// what a finding costs (gitleaks' allowlist expressions run on it).
	worstMessage = settingsLines(false)
	keysMessage  = settingsLines(true)
	proseMessage = strings.Repeat("The deploy failed again after I rotated the database password: the worker "+
		"still held the old token in its cache, so every request to the billing API came back 401 until "+
		"the pod restarted. I ran `go test ./billing/... -run TestRefreshToken -count=1` on commit 3f2a9c1d "+
		"and it passed, which means the key lookup works and the bug is in how the cache expires entries. "+
		"Stack: billing/cache.go:88 (*Cache).Get -> billing/client.go:141 (*Client).Do -> net/http. "+
		"Next I will make the cache key include the credential version. ", 4)[:2048]
)

func settingsLines(keys bool) string {
	names := []string{"password", "secret_key", "api_token", "client_secret", "passphrase", "auth_token"}
	var b strings.Builder
	for i := range 30 {
		value := fmt.Sprintf("see-vault-entry-%02d-rotated-quarterly-by-ops-v2", i)
		if keys && i%2 == 1 {
			value = fmt.Sprintf("rc%02d.k%xq%xz.%x", i, i*7919, i*104729, i*1299709)
		}
		fmt.Fprintf(&b, "%s_%s_hint_%02d: %s\n", []string{"db", "svc", "ci"}[i%3], names[i%len(names)], i, value)
	}
	return b.String()
}

func BenchmarkRedact2KB(b *testing.B) {
	Find("warm up")
	for _, c := range []struct{ name, text string }{{"prose", proseMessage}, {"dense", denseMessage}, {"worst", worstMessage}, {"keys", keysMessage}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				Redact(c.text)
			}
		})
	}
}

func TestRedactReplacesEachSecretWithItsRuleMarker(t *testing.T) {
	g := secretstest.NewGen(7)
	pat := "ghp_" + g.Pick(secretstest.Alnum, 36)
	aws := "AKIA" + g.Pick(secretstest.B32, 16)
	pw := g.Pick(secretstest.Alnum, 16)
	for _, c := range []struct{ in, want string }{
		{"token " + pat + " expired", "token [redacted: github-pat] expired"},
		// Offsets are bytes: text before the secret that is not ASCII, and
		// lines before it, move it.
		{"Ünïcödé — ключ:\n\n  " + aws + "\nnext", "Ünïcödé — ключ:\n\n  [redacted: aws-access-token]\nnext"},
		{"postgres://app:" + pw + "@db:5432/app", "postgres://app:[redacted: connection-string-password]@db:5432/app"},
		{"a " + pat + " and b " + pat, "a [redacted: github-pat] and b [redacted: github-pat]"},
		{"nothing here", "nothing here"},
	} {
		got, _ := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		// Redacting again finds nothing: a marker is not a secret.
		if again, fs := Redact(got); again != got || len(fs) != 0 {
			t.Errorf("Redact of a redacted text found %v: %q", fs, again)
		}
	}
}

func TestFindingsNameTheValueWithoutHoldingIt(t *testing.T) {
	key := "sk_live_" + secretstest.NewGen(8).Pick(secretstest.Alnum, 24)
	_, fs := Redact("STRIPE_SECRET_KEY=" + key)
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	if fs[0].Rule != "stripe-access-token" || fs[0].Fingerprint != Fingerprint(key) || len(fs[0].Fingerprint) != 16 {
		t.Errorf("finding %+v, want stripe-access-token with the key's fingerprint", fs[0])
	}
	if strings.Contains(fs[0].Fingerprint, key[8:16]) {
		t.Error("the fingerprint holds part of the key")
	}
}

func TestConcurrentRedactionsAgree(t *testing.T) {
	creds := secretstest.FakeCredentials(2)
	want := make([]string, len(creds))
	for i, c := range creds {
		want[i], _ = Redact(c.Text)
	}
	done := make(chan bool)
	for range 4 {
		go func() {
			ok := true
			for i, c := range creds {
				if got, _ := Redact(c.Text); got != want[i] {
					ok = false
				}
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a concurrent redaction differed")
		}
	}
}

func TestURLPasswordsInEveryScheme(t *testing.T) {
	pw := "p#ss?" + secretstest.NewGen(9).Pick(secretstest.Alnum, 10)
	for _, c := range []struct{ url, rule string }{
		{"postgres://app:" + pw + "@db:5432/app", "connection-string-password"},
		{"jdbc:mysql://app:" + pw + "@db:3306/app", "connection-string-password"},
		{"oracle://scott:" + pw + "@db:1521/orcl", "connection-string-password"},
		{"ssh://deploy:" + pw + "@host/repo.git", "url-password"},
		{"https://ci:" + pw + "@pypi.example/simple", "url-password"},
	} {
		got, fs := Redact("use " + c.url + " now")
		if strings.Contains(got, pw) || len(fs) != 1 || fs[0].Rule != c.rule {
			t.Errorf("Redact(%q) = %q, %v; want the password redacted by %s", c.url, got, fs, c.rule)
		}
	}
}
