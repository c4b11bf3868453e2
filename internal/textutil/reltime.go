package textutil

import (
	"fmt"
	"time"
)

// RelativeTime says how long before now t was: "just now" under a minute,
// then minutes, hours and days ("5m ago", "3h ago", "12d ago"), and the date
// (YYYY-MM-DD, UTC) from 30 days on. A time in the future reads "just now";
// the zero time reads "?".
func RelativeTime(t, now time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return t.UTC().Format("2006-01-02")
}
