package memtrim

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// HoldHeadroom is how much the Go heap may grow past what it held live
// (and what the runtime keeps beside the heap) while a Hold is in force.
const HoldHeadroom = 24 << 20

// holds counts the Holds in force; the first sets the limit, the last
// puts back the one it found.
var holds struct {
	sync.Mutex
	n    int
	prev int64
}

// Hold lowers the Go runtime's soft memory limit while a long job that
// makes much short-lived garbage runs (a space import writes a few hundred
// kilobytes of it per checkpoint): without it the heap grows to twice what
// is live before each collection, with it the heap stays within
// HoldHeadroom of what is live (and so does the resident set). The limit
// is what the runtime holds now, less the garbage, plus HoldHeadroom; a
// lower limit already set (GOMEMLIMIT) is kept. The collector runs more
// often while the Hold is in force, and no more than the collector's own
// cap on its share of the CPU when the live heap nears the limit.
//
// Release restores the limit the first Hold found once every Hold is
// released; call it exactly once.
func Hold() (release func()) {
	holds.Lock()
	defer holds.Unlock()
	holds.n++
	if holds.n == 1 {
		prev := debug.SetMemoryLimit(-1)
		holds.prev = prev
		if limit := heldLimit(); limit < prev {
			debug.SetMemoryLimit(limit)
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			holds.Lock()
			defer holds.Unlock()
			if holds.n--; holds.n == 0 {
				debug.SetMemoryLimit(holds.prev)
			}
		})
	}
}

// heldLimit is the live heap as of the last collection, plus the memory
// the runtime keeps outside the heap (stacks, its own structures), plus
// HoldHeadroom.
func heldLimit() int64 {
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(samples)
	v := make([]uint64, len(samples))
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return math.MaxInt64
		}
		v[i] = s.Value.Uint64()
	}
	live, total := v[0], v[1]
	heap := v[2] + v[3] + v[4] + v[5]
	outside := uint64(0)
	if total > heap {
		outside = total - heap
	}
	return int64(live + outside + HoldHeadroom)
}
