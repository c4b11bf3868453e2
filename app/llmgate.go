package app

import (
	"context"
	"errors"
	"math"
	"smriti/account"
	"sync"

	"golang.org/x/time/rate"

	"smriti"
)

// GateConfig configures the LLM gate.
type GateConfig struct {
	// Roles, when set (auth mode), is asked for the caller's role in the
	// space of each thing a call names; the role must permit a write.
	Roles func(ctx context.Context, id smriti.ID) (account.Role, error)
	// RatePerMinute and Burst bound each principal's provider-backed calls;
	// 0 means no limit.
	RatePerMinute float64
	Burst         int
}

// Gate is the one door every call that would reach a model provider passes
// through, whichever entry point it came by (HTTP, MCP in-process): the
// caller's role in each named thing's space must permit a write, and the
// caller must be within their allowance of LLM-backed calls.
type Gate struct {
	cfg   GateConfig
	every rate.Limit
	mu    sync.Mutex
	by    map[string]*rate.Limiter
}

// maxLimiters bounds the gate's map; past it the buckets start afresh (a
// caller then gets at most one extra burst).
const maxLimiters = 10000

// NewGate builds a gate.
func NewGate(cfg GateConfig) *Gate {
	if cfg.Burst <= 0 {
		cfg.Burst = 1
	}
	return &Gate{cfg: cfg, every: rate.Limit(cfg.RatePerMinute / 60), by: map[string]*rate.Limiter{}}
}

// RetryLater is the error of a call refused until later: the caller may try
// again after Seconds (HTTP sends them as Retry-After).
type RetryLater struct {
	Seconds int
	Err     error
}

func (e *RetryLater) Error() string { return e.Err.Error() }
func (e *RetryLater) Unwrap() error { return e.Err }

// RetryAfter returns the seconds err asks the caller to wait, 0 when it
// asks nothing.
func RetryAfter(err error) int {
	var rl *RetryLater
	if errors.As(err, &rl) {
		return rl.Seconds
	}
	return 0
}

type principalKey struct{}

// WithPrincipal returns ctx carrying the caller the gate admits or refuses.
func WithPrincipal(ctx context.Context, p *account.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns the caller in ctx, nil when there is none.
func PrincipalOf(ctx context.Context) *account.Principal {
	p, _ := ctx.Value(principalKey{}).(*account.Principal)
	return p
}

// Admit admits or refuses a provider call by the caller in ctx about the
// things ids name (spaces, sessions, checkpoints). A call with no principal
// (made in-process by the program itself) is admitted. Things the caller
// cannot see are left to the use case, which answers ENOTFOUND for them.
// EFORBIDDEN for a role that may not write; ETOOMANY (a *RetryLater) when
// the allowance is spent.
func (g *Gate) Admit(ctx context.Context, ids ...smriti.ID) error {
	p := PrincipalOf(ctx)
	if g == nil || p == nil {
		return nil
	}
	if g.cfg.Roles != nil {
		for _, id := range ids {
			role, err := g.cfg.Roles(ctx, id)
			if smriti.ErrorCode(err) == smriti.ENOTFOUND {
				continue
			}
			if err != nil {
				return err
			}
			if err := role.Authorize(account.NeedWrite); err != nil {
				return err
			}
		}
	}
	return g.spend(p)
}

// spend takes one LLM-backed call from the principal's allowance.
func (g *Gate) spend(p *account.Principal) error {
	if g.cfg.RatePerMinute <= 0 {
		return nil
	}
	key := "user:" + p.UserID.String()
	if p.TokenID != nil {
		key = "token:" + p.TokenID.String()
	}
	res := g.limiter(key).Reserve()
	if res.OK() && res.Delay() == 0 {
		return nil
	}
	wait := res.Delay()
	res.Cancel()
	secs := max(1, int(math.Ceil(wait.Seconds())))
	return &RetryLater{Seconds: secs, Err: smriti.Errorf(smriti.ETOOMANY,
		"rate limit for LLM-backed calls reached (%g per minute); retry in %d s", g.cfg.RatePerMinute, secs)}
}

func (g *Gate) limiter(key string) *rate.Limiter {
	g.mu.Lock()
	defer g.mu.Unlock()
	lim, ok := g.by[key]
	if !ok {
		if len(g.by) >= maxLimiters {
			g.by = map[string]*rate.Limiter{}
		}
		lim = rate.NewLimiter(g.every, g.cfg.Burst)
		g.by[key] = lim
	}
	return lim
}
