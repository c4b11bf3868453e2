package memtrim

import (
	"runtime/debug"
	"sync"
)

// HoldGCPercent is the collector's target while a Hold is in force: the
// heap grows by half of what is live before a collection, not by all of it
// (GOGC's default of 100).
const HoldGCPercent = 50

// holds counts the Holds in force; the first sets the target, the last
// puts back the one it found.
var holds struct {
	sync.Mutex
	n    int
	prev int
}

// Hold makes the collector run sooner while a long job that makes much
// short-lived garbage runs (a space import makes a few hundred kilobytes
// of it a checkpoint): the heap, and so the resident set, peaks at one and
// a half times what is live instead of twice. The collector runs about
// twice as often meanwhile. The target follows the live heap, so a job
// (or a concurrent request) that holds more than expected makes the heap
// larger, never the collector run without pause as a fixed memory limit
// would. A lower target already set (GOGC) is kept, and so is a collector
// turned off.
//
// Release restores the target the first Hold found once every Hold is
// released; call it exactly once.
func Hold() (release func()) {
	holds.Lock()
	defer holds.Unlock()
	holds.n++
	if holds.n == 1 {
		holds.prev = debug.SetGCPercent(HoldGCPercent)
		if holds.prev < HoldGCPercent {
			debug.SetGCPercent(holds.prev)
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			holds.Lock()
			defer holds.Unlock()
			if holds.n--; holds.n == 0 {
				debug.SetGCPercent(holds.prev)
			}
		})
	}
}
