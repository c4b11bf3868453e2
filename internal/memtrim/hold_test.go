package memtrim

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestHoldLowersTheLimitUntilTheLastRelease(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)

	first := Hold()
	held := debug.SetMemoryLimit(-1)
	if held == math.MaxInt64 || held < HoldHeadroom {
		t.Fatalf("limit while held = %d; want a finite limit of at least %d", held, HoldHeadroom)
	}
	second := Hold()
	if got := debug.SetMemoryLimit(-1); got != held {
		t.Fatalf("a second hold changed the limit to %d; want %d", got, held)
	}
	first()
	first() // a second call does nothing
	if got := debug.SetMemoryLimit(-1); got != held {
		t.Fatalf("limit after the first release = %d; want %d while the second holds", got, held)
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit after the last release = %d; want %d", got, int64(math.MaxInt64))
	}
}

func TestHoldKeepsALowerLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(1 << 20)
	defer debug.SetMemoryLimit(prev)
	release := Hold()
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Fatalf("limit while held = %d; want the lower %d kept", got, 1<<20)
	}
	release()
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Fatalf("limit after release = %d; want %d", got, 1<<20)
	}
}
