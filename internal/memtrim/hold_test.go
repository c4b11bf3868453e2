package memtrim

import (
	"runtime/debug"
	"testing"
)

func TestHoldLowersTheTargetUntilTheLastRelease(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)

	first := Hold()
	if got := gcPercent(); got != HoldGCPercent {
		t.Fatalf("target while held = %d; want %d", got, HoldGCPercent)
	}
	second := Hold()
	first()
	first() // a second call does nothing
	if got := gcPercent(); got != HoldGCPercent {
		t.Fatalf("target after the first release = %d; want %d while the second holds", got, HoldGCPercent)
	}
	second()
	if got := gcPercent(); got != 100 {
		t.Fatalf("target after the last release = %d; want 100", got)
	}
}

func TestHoldKeepsALowerTargetAndACollectorTurnedOff(t *testing.T) {
	prev := debug.SetGCPercent(20)
	defer debug.SetGCPercent(prev)
	for _, set := range []int{20, -1} {
		debug.SetGCPercent(set)
		release := Hold()
		if got := gcPercent(); got != set {
			t.Fatalf("target while held = %d; want %d kept", got, set)
		}
		release()
		if got := gcPercent(); got != set {
			t.Fatalf("target after release = %d; want %d", got, set)
		}
	}
}

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
