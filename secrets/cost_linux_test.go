package secrets

import (
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time the calling thread has used; on a machine shared
// with other work it measures the detector, where wall time measures the
// machine's load.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRedactCost reports the CPU time redaction adds to a send of a 2 KB
// message: the median over batches of 400 calls (go test -run RedactCost -v).
// It asserts nothing about time.
func TestRedactCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	Find("warm up")
	for _, c := range []struct{ name, text string }{{"prose", proseMessage}, {"dense", denseMessage}, {"worst", worstMessage}, {"keys", keysMessage}} {
		const batches, per = 15, 400
		ds := make([]time.Duration, batches)
		for i := range ds {
			st := threadCPU()
			for range per {
				Redact(c.text)
			}
			ds[i] = (threadCPU() - st) / per
		}
		slices.Sort(ds)
		t.Logf("%s, %d bytes: CPU per message p50 %v, p90 %v", c.name, len(c.text), ds[batches/2], ds[batches*9/10])
	}
}
