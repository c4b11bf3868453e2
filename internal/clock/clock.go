// Package clock is the time source stores and services read, so that
// tests can set it.
package clock

import "time"

// Clock returns the current time. Stores and services take one so that tests
// control time; production uses Now.
type Clock func() time.Time

// Now is the production clock: UTC, truncated to microseconds because that is
// what both database engines keep (and the checkpoint hash covers the time).
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
