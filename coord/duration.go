package coord

import (
	"smriti"
	"smriti/internal/textutil"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration as every flag and field of Smriti takes
// it: Go's form ("2h", "90m", "1h30m"), days and weeks ("2d", "1w"), or a
// bare number of hours ("2", "0.5"). EINVALID otherwise, or when negative.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	bad := func() (time.Duration, error) {
		return 0, smriti.Errorf(smriti.EINVALID, "invalid duration %q: use a form like 90m, 2h, 1h30m, 3d or 1w", textutil.Truncate(s, 40))
	}
	if s == "" {
		return bad()
	}
	if h, err := strconv.ParseFloat(s, 64); err == nil {
		if h < 0 {
			return bad()
		}
		return ClaimTTLHours(h), nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil || f < 0 || f > 1e4 {
				return bad()
			}
			return time.Duration(f * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return bad()
	}
	return d, nil
}
