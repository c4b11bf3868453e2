// Package secretstest holds the corpora the secret detector is measured
// by, for the tests of every door that must redact: fake credentials in the
// formats people paste, and ordinary technical messages that must come back
// untouched. Only tests import it.
package secretstest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The corpora are generated, not committed: the credentials are random and
// fake, built at run time in each provider's format, so that no file in the
// repository looks like a leaked key to a scanner. The same seed gives the
// same corpus.

// Character sets of the formats.
const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	Alnum  = upper + lower + digits
	hexLo  = "0123456789abcdef"
	B32    = upper + "234567"
	b64    = Alnum + "+/"
	url64  = Alnum + "-_"
)

// Gen makes random fake values.
type Gen struct{ r *rand.Rand }

// NewGen is a generator with a fixed seed.
func NewGen(seed uint64) Gen { return Gen{rand.New(rand.NewPCG(seed, seed^0x5eed))} }

// Pick is n characters drawn from set.
func (g Gen) Pick(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

func (g Gen) one(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// Credential is one fake secret: its format's name, the value that must not
// survive redaction, and the text around it as a person would paste it.
type Credential struct {
	Format string
	Secret string
	Text   string
}

// credentialFormats make a fake secret and the way it is usually written;
// %s in each context is the secret.
var credentialFormats = []struct {
	name     string
	secret   func(g Gen) string
	contexts []string
}{
	{"aws-access-key-id", func(g Gen) string { return "AKIA" + g.Pick(B32, 16) },
		[]string{"export AWS_ACCESS_KEY_ID=%s", "aws_access_key_id = %s", `{"AccessKeyId": "%s", "Expiration": "2026-12-08T00:00:00Z"}`}},
	{"aws-secret-access-key", func(g Gen) string { return g.Pick(b64, 40) },
		[]string{"export AWS_SECRET_ACCESS_KEY=%s", "aws_secret_access_key = %s", `"SecretAccessKey": "%s",`}},
	{"github-pat", func(g Gen) string { return "ghp_" + g.Pick(Alnum, 36) },
		[]string{"export GITHUB_TOKEN=%s", "git clone https://x-access-token:%s@github.com/acme/api.git", "the token is %s but push still fails"}},
	{"github-fine-grained-pat", func(g Gen) string { return "github_pat_" + g.Pick(Alnum, 22) + "_" + g.Pick(Alnum, 59) },
		[]string{"GH_TOKEN=%s gh pr list", "token: %s"}},
	{"github-oauth", func(g Gen) string { return "gho_" + g.Pick(Alnum, 36) },
		[]string{"oauth_token: %s", "gh auth status shows %s"}},
	{"gitlab-pat", func(g Gen) string { return "glpat-" + g.Pick(url64, 20) },
		[]string{"PRIVATE-TOKEN: %s", "export GITLAB_TOKEN=%s"}},
	{"slack-bot-token", func(g Gen) string {
		return "xoxb-" + g.Pick(digits, 12) + "-" + g.Pick(digits, 13) + "-" + g.Pick(Alnum, 24)
	}, []string{"SLACK_BOT_TOKEN=%s", `slack = WebClient(token="%s")`}},
	{"slack-webhook", func(g Gen) string {
		return "https://hooks.slack.com/services/T" + g.Pick(upper+digits, 8) + "/B" + g.Pick(upper+digits, 10) + "/" + g.Pick(Alnum, 24)
	}, []string{"curl -X POST -d '{\"text\":\"deploy done\"}' %s", "SLACK_WEBHOOK_URL=%s"}},
	{"stripe-live", func(g Gen) string { return "sk_live_" + g.Pick(Alnum, 24) },
		[]string{"STRIPE_SECRET_KEY=%s", `stripe.api_key = "%s"`}},
	{"stripe-test", func(g Gen) string { return "sk_test_" + g.Pick(Alnum, 24) },
		[]string{"STRIPE_SECRET_KEY=%s", "using %s in the fixture"}},
	{"openai", func(g Gen) string { return "sk-proj-" + g.Pick(url64, 74) + "T3BlbkFJ" + g.Pick(url64, 74) },
		[]string{"export OPENAI_API_KEY=%s", `client = OpenAI(api_key="%s")`}},
	{"anthropic", func(g Gen) string { return "sk-ant-api03-" + g.Pick(url64, 93) + "AA" },
		[]string{"ANTHROPIC_API_KEY=%s", "x-api-key: %s"}},
	{"google-api-key", func(g Gen) string { return "AIza" + g.Pick(url64, 35) },
		[]string{"GOOGLE_API_KEY=%s", "https://maps.googleapis.com/maps/api/geocode/json?address=x&key=%s"}},
	{"jwt", func(g Gen) string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		p := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"sub":"%s","iat":%d,"role":"admin"}`, g.Pick(Alnum, 12), 1700000000+g.r.IntN(1e8)))
		return h + "." + p + "." + g.Pick(url64, 43)
	}, []string{"Authorization: Bearer %s", "the session cookie was %s", `{"access_token": "%s", "expires_in": 3600}`}},
	{"bearer-opaque", func(g Gen) string { return g.Pick(Alnum, 40) },
		[]string{`curl -H "Authorization: Bearer %s" https://api.example.com/v1/me`, "Authorization: Bearer %s"}},
	{"basic-auth-header", func(g Gen) string {
		return base64.StdEncoding.EncodeToString([]byte("deploy:" + g.Pick(Alnum, 20)))
	}, []string{"Authorization: Basic %s", `curl -H 'Authorization: Basic %s' https://ci.example.com/api`}},
	{"private-key-rsa", func(g Gen) string {
		var lines []string
		for range 12 {
			lines = append(lines, g.Pick(b64, 64))
		}
		return "MIIEow" + g.Pick(b64, 58) + "\n" + strings.Join(lines, "\n")
	}, []string{"-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----", "here is the deploy key:\n-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\nand it still says permission denied"}},
	{"private-key-openssh", func(g Gen) string {
		var lines []string
		for range 6 {
			lines = append(lines, g.Pick(b64, 70))
		}
		return "b3BlbnNzaC1rZXktdjEAAAAA" + g.Pick(b64, 46) + "\n" + strings.Join(lines, "\n")
	}, []string{"-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----"}},
	{"postgres-url", func(g Gen) string { return g.Pick(Alnum, 16) },
		[]string{"DATABASE_URL=postgres://app:%s@db.internal:5432/app?sslmode=require", "psql postgresql://admin:%s@10.0.3.7/prod"}},
	{"mysql-url", func(g Gen) string { return g.Pick(Alnum+"!*", 14) },
		[]string{"mysql://root:%s@127.0.0.1:3306/shop", `"dsn": "mysql://svc:%s@mysql.prod:3306/orders"`}},
	{"mongodb-url", func(g Gen) string { return g.Pick(Alnum, 18) },
		[]string{"MONGO_URI=mongodb+srv://reader:%s@cluster0.ab1cd.mongodb.net/test", "mongodb://app:%s@mongo-0:27017/app"}},
	{"redis-url", func(g Gen) string { return g.Pick(Alnum, 24) },
		[]string{"REDIS_URL=redis://:%s@cache.internal:6379/0", "rediss://default:%s@redis.example.net:6380"}},
	{"basic-auth-url", func(g Gen) string { return g.Pick(Alnum, 12) },
		[]string{"pip install --index-url https://ci:%s@pypi.internal.example/simple pkg", "proxy = http://user:%s@proxy.corp:3128"}},
	{"azure-storage-key", func(g Gen) string { return g.Pick(b64, 86) + "==" },
		[]string{"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=%s;EndpointSuffix=core.windows.net"}},
	{"twilio", func(g Gen) string { return "SK" + g.Pick(hexLo, 32) },
		[]string{"TWILIO_API_KEY=%s", "twilio api key %s"}},
	{"sendgrid", func(g Gen) string { return "SG." + g.Pick(url64, 22) + "." + g.Pick(url64, 43) },
		[]string{"SENDGRID_API_KEY=%s"}},
	{"npm", func(g Gen) string { return "npm_" + g.Pick(Alnum, 36) },
		[]string{"//registry.npmjs.org/:_authToken=%s", "NPM_TOKEN=%s"}},
	{"pypi", func(g Gen) string { return "pypi-AgEIcHlwaS5vcmc" + g.Pick(url64, 70) },
		[]string{"password = %s", "TWINE_PASSWORD=%s"}},
	{"huggingface", func(g Gen) string { return "hf_" + g.Pick(upper+lower, 34) },
		[]string{"HF_TOKEN=%s", "huggingface-cli login --token %s"}},
	{"shopify", func(g Gen) string { return "shpat_" + g.Pick(hexLo, 32) },
		[]string{"X-Shopify-Access-Token: %s"}},
	{"digitalocean", func(g Gen) string { return "dop_v1_" + g.Pick(hexLo, 64) },
		[]string{"DIGITALOCEAN_TOKEN=%s"}},
	{"databricks", func(g Gen) string { return "dapi" + g.Pick(hexLo, 32) },
		[]string{"DATABRICKS_TOKEN=%s"}},
	{"env-password", func(g Gen) string { return g.Pick(Alnum, 10) + g.one("#", "!", "%", "^") + g.Pick(Alnum, 8) },
		[]string{"DB_PASSWORD=%s", `password: "%s"`, "SMTP_PASSWORD='%s'"}},
}

// FakeCredentials are n of each format, each in one of its contexts.
func FakeCredentials(n int) []Credential {
	g := NewGen(46)
	var out []Credential
	for _, f := range credentialFormats {
		for i := range n {
			s := f.secret(g)
			out = append(out, Credential{f.name, s, fmt.Sprintf(f.contexts[i%len(f.contexts)], s)})
		}
	}
	return out
}

// OrdinaryMessages are technical messages without a secret: prose about
// passwords and tokens, identifiers, hashes, encodings and settings whose
// names sound like secrets.
func OrdinaryMessages() []string {
	g := NewGen(500)
	sha := func() string { return g.Pick(hexLo, 40) }
	uuid := func() string {
		h := g.Pick(hexLo, 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	sha256 := func() string { return g.Pick(hexLo, 64) }
	ident := func() string {
		return g.one("handle", "resolve", "compute", "build", "fetch") + g.one("User", "Session", "Checkpoint", "Token", "Password", "Secret") +
			g.one("Validation", "Refresh", "Rotation", "Expiry", "Lookup") + g.one("Handler", "Service", "Middleware", "Factory", "Controller")
	}
	word := func() string {
		return g.one("deploy", "session", "checkpoint", "merge", "review", "cache", "index", "worker", "queue", "schema")
	}
	templates := []func() string{
		func() string {
			return "We rotate the password every 90 days; the " + word() + " job reads it from the vault at start-up."
		},
		func() string {
			return "Fixed in commit " + sha() + ": the token refresh no longer races the " + word() + " worker."
		},
		func() string { return "git cherry-pick " + sha()[:12] + " && git push origin HEAD" },
		func() string { return `{"user_id": "` + uuid() + `", "password_changed": false, "mfa": true}` },
		func() string {
			return `api_key = os.environ["` + g.one("OPENAI_API_KEY", "STRIPE_KEY", "API_KEY") + `"]`
		},
		func() string { return "api_version=2024-" + g.one("01", "06", "10") + "-" + g.one("01", "15", "28") },
		func() string { return "AZURE_OPENAI_API_VERSION=2024-" + g.one("02", "08") + "-01-preview" },
		func() string { return "sha256:" + sha256() + " is the digest of the image we deployed" },
		func() string { return "The file's SHA-256 is " + sha256() + "; it matches the release notes." },
		func() string { return "request id " + uuid() + " failed with 401: token expired" },
		func() string { return "color: #" + g.Pick(hexLo, 6) + "; background: #" + g.Pick(hexLo, 3) + ";" },
		func() string { return "The " + ident() + " calls " + ident() + " before it returns." },
		func() string {
			return "base64 of the fixture is " + base64.StdEncoding.EncodeToString([]byte("hello "+word()+" world")) + " which decodes fine"
		},
		func() string { return `const token = await getToken({ scope: "` + word() + `.read" });` },
		func() string {
			return "password_reset_sent_at: 2026-" + g.one("03", "11") + "-07T10:2" + g.Pick(digits, 1) + ":00Z"
		},
		func() string { return "secret_name: " + word() + "-db-credentials" },
		func() string { return "token_count: " + g.Pick(digits, 5) + ", max_tokens: 4096, temperature: 0.2" },
		func() string {
			return "Never log the password; hash it with bcrypt (cost 12) and compare with bcrypt.CompareHashAndPassword."
		},
		func() string { return "DATABASE_URL=postgres://localhost:5432/" + word() + "_dev" },
		func() string { return "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app" },
		func() string { return "mysql://root:<password>@127.0.0.1:3306/" + word() },
		func() string { return "password: \"********\" # set in the secrets manager" },
		func() string { return "export API_KEY=$(vault kv get -field=key secret/" + word() + ")" },
		func() string { return "Authorization: Bearer <token>" },
		func() string { return `curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user` },
		func() string { return "uuid " + uuid() + " belongs to the " + word() + " space" },
		func() string {
			return "go test ./store/... -run TestCheckpoint" + g.one("Hash", "Verify", "Merge") + " -count=1"
		},
		func() string {
			return "--- FAIL: Test" + g.one("Token", "Secret", "Password") + "Rotation (0.0" + g.Pick(digits, 1) + "s)\n    auth_test.go:" + g.Pick(digits, 3) + ": got 403, want 200"
		},
		func() string {
			return "The secret to a fast " + word() + " is keeping the hot path free of allocations."
		},
		func() string { return "key: " + word() + "." + word() + ".enabled, value: true" },
		func() string { return "cache_key = f\"{user_id}:{" + word() + "_id}\"" },
		func() string { return "The access token lives 15 minutes and the refresh token 30 days." },
		func() string {
			return "integrity sha512-" + base64.StdEncoding.EncodeToString([]byte(g.Pick(Alnum, 48)))
		},
		func() string { return "https://github.com/acme/" + word() + "/commit/" + sha() },
		func() string { return "https://git@github.com/acme/" + word() + ".git" },
		func() string { return "ssh://git@gitlab.example.com:2222/team/" + word() + ".git" },
		func() string { return "object " + sha256()[:32] + " is the md5 of the upload" },
		func() string { return "SECRET_KEY_BASE is generated per environment; see config/credentials.yml.enc" },
		func() string { return "private_key_path: ~/.ssh/id_ed25519" },
		func() string { return "The JWT header says alg=RS256, kid=" + g.Pick(hexLo, 8) },
		func() string { return "password_min_length: 12\npassword_require_symbol: true" },
		func() string { return "if err := auth.ValidateToken(ctx, tok); err != nil { return ErrUnauthorized }" },
		func() string { return "secretRef:\n  name: " + word() + "-tls\n  key: tls.key" },
		func() string { return "valueFrom:\n  secretKeyRef:\n    name: api-credentials\n    key: password" },
		func() string { return "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}" },
		func() string { return "aws_access_key_id = AKIAIOSFODNN7EXAMPLE" },
		func() string { return "The " + word() + " id is " + g.Pick(digits, 19) + " in the Discord API." },
		func() string { return "ETag: \"" + g.Pick(hexLo, 32) + "\"" },
		func() string {
			return "passwordless sign-in via WebAuthn ships in " + g.one("v1.4", "v2.0", "the next release")
		},
		func() string {
			return "I think the key insight is that the " + word() + " and the " + word() + " share one transaction."
		},
		func() string { return "Set `auth: none` for the local " + word() + " and `auth: oidc` in production." },
		func() string {
			return "tokens=" + g.Pick(digits, 4) + " prompt_tokens=" + g.Pick(digits, 4) + " completion_tokens=" + g.Pick(digits, 3)
		},
		func() string { return "the build took 42s; cache hit rate 87% (keys: " + g.Pick(digits, 3) + ")" },
		func() string { return "credentials_id = \"" + word() + "-ci\"" },
		func() string { return "api_key_header_name = \"X-API-Key\"" },
		func() string { return "checkpoint " + g.Pick(hexLo, 64) + " verifies" },
		func() string { return "Version: 1.4." + g.Pick(digits, 1) + "+build." + g.Pick(hexLo, 7) },
		func() string { return "monkey patching the auth module in tests is fragile" },
		func() string { return "ConnectionString: Server=db;Database=" + word() + ";Integrated Security=true" },
		func() string { return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g.Pick(b64, 43) + " dev@laptop" },
		func() string { return "u := User{Email: email, Password: hashedPassword, CreatedAt: now}" },
		func() string { return "cfg.DBPassword = os.Getenv(\"DB_PASSWORD\")" },
		func() string { return "password = form.cleaned_data[\"password\"]" },
		func() string { return "self.password = password" },
		func() string { return "password: str = Field(min_length=12)" },
		func() string { return "const password = passwordInput.value.trim();" },
		func() string { return "client_secret: ${{ secrets.OAUTH_CLIENT_SECRET }}" },
		func() string { return "SECRET_KEY = env(\"DJANGO_SECRET_KEY\")" },
		func() string { return "passwd: files systemd" },
		func() string { return "  --password-stdin < ~/.docker/token" },
	}
	var out []string
	for i := 0; len(out) < 600; i++ {
		out = append(out, templates[i%len(templates)]())
	}
	return out
}
