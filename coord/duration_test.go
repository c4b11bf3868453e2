package coord

import (
	"smriti"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"2h": 2 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute,
		"3d": 72 * time.Hour, "1w": 168 * time.Hour, "2": 2 * time.Hour, "0.5": 30 * time.Minute, " 2H ": 2 * time.Hour} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "-2h", "-1", "2x", "d"} {
		if _, err := ParseDuration(in); smriti.ErrorCode(err) != smriti.EINVALID {
			t.Errorf("ParseDuration(%q) err = %v, want EINVALID", in, err)
		}
	}
}
