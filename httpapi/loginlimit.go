package httpapi

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"smriti"
)

// Password guessing is slowed by argon2id's cost and stopped here: each
// account name and each client address gets a small allowance of sign-in
// attempts that refills slowly. Both buckets are spent on every attempt,
// so one address cannot try many names and many addresses cannot try one.
const (
	// loginBurst attempts are allowed at once per name and per address.
	loginBurst = 10
)

// DefaultLoginRefill is how often one more sign-in attempt is allowed.
const DefaultLoginRefill = 6 * time.Second

type loginLimits struct {
	names, addrs *limiters
}

func newLoginLimits(refill time.Duration) *loginLimits {
	if refill <= 0 {
		refill = DefaultLoginRefill
	}
	every := rate.Every(refill)
	return &loginLimits{
		names: &limiters{every: every, burst: loginBurst, by: map[string]*rate.Limiter{}},
		addrs: &limiters{every: every, burst: 3 * loginBurst, by: map[string]*rate.Limiter{}},
	}
}

// allow spends one attempt for username from r's address, or answers 429
// with Retry-After when either allowance is spent.
func (l *loginLimits) allow(w http.ResponseWriter, r *http.Request, username string) error {
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
	}
	name, from := l.names.get(strings.ToLower(username)), l.addrs.get(addr)
	// Look before spending: a refused attempt costs neither allowance.
	wait := max(untilOne(name), untilOne(from))
	if wait == 0 {
		name.Allow()
		from.Allow()
		return nil
	}
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return smriti.Errorf(smriti.ETOOMANY, "too many sign-in attempts; retry in %d s", secs)
}

// untilOne is how long until lim holds a whole token (0 when it does).
func untilOne(lim *rate.Limiter) time.Duration {
	short := 1 - lim.Tokens()
	if short <= 0 {
		return 0
	}
	return time.Duration(short / float64(lim.Limit()) * float64(time.Second))
}

// limiters holds one token bucket per key (an account name, a client
// address).
type limiters struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	by    map[string]*rate.Limiter
}

// maxLimiters bounds the map; past it the buckets start afresh (a caller
// then gets at most one extra burst).
const maxLimiters = 10000

func (l *limiters) get(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.by[key]
	if !ok {
		if len(l.by) >= maxLimiters {
			l.by = map[string]*rate.Limiter{}
		}
		lim = rate.NewLimiter(l.every, l.burst)
		l.by[key] = lim
	}
	return lim
}
