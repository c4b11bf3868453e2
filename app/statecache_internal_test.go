package app

import (
	"strings"
	"testing"
)

// The state cache keeps within its bound, the least recently used entry
// going first; an entry over the whole bound is served but not kept.
func TestStateCacheStaysWithinItsBound(t *testing.T) {
	entry := func(key string, size int) *stateEntry {
		return &stateEntry{key: key, system: strings.Repeat("x", size)}
	}
	one := int64(1000 + 1 + stateEntryOverhead) // the size of each entry below
	c := newStateCache(3 * one)
	for _, k := range []string{"a", "b", "c"} {
		c.add(entry(k, 1000))
	}
	if c.get("a") == nil { // a is now the most recently used
		t.Fatal("a was not kept")
	}
	c.add(entry("d", 1000))
	if c.get("b") != nil {
		t.Fatal("b, the least recently used, was kept past the bound")
	}
	for _, k := range []string{"a", "c", "d"} {
		if c.get(k) == nil {
			t.Fatalf("%s was evicted", k)
		}
	}
	if c.used != 3*one || c.used > c.limit {
		t.Fatalf("used = %d, want %d within %d", c.used, 3*one, c.limit)
	}
	big := entry("big", int(4*one))
	if got := c.add(big); got != big || c.get("big") != nil || len(c.byKey) != 3 {
		t.Fatalf("an entry over the bound was kept (%d entries)", len(c.byKey))
	}
	if first, again := c.add(entry("e", 10)), c.add(entry("e", 10)); first != again {
		t.Fatal("a second rendering of a kept list replaced the first")
	}
}

// The state cache is dropped when the store's cache epoch moves (a purge on
// another server rewrote checkpoints, keeping their hashes), and kept while
// it stays.
func TestStateCacheFollowsTheStoresEpoch(t *testing.T) {
	c := newStateCache(1 << 20)
	c.at(0)
	c.add(&stateEntry{key: "a", system: "state holding a secret"})
	c.at(0)
	if c.get("a") == nil {
		t.Fatal("the same epoch dropped the entry")
	}
	c.at(1)
	if c.get("a") != nil || c.used != 0 || len(c.byKey) != 0 {
		t.Fatalf("a new epoch kept %d entries (%d bytes)", len(c.byKey), c.used)
	}
	c.add(&stateEntry{key: "a", system: "state, purged"})
	c.at(1)
	if e := c.get("a"); e == nil || e.system != "state, purged" {
		t.Fatalf("after the new epoch: %+v", e)
	}
	var none *stateCache
	none.at(2) // no cache: nothing to drop
}
