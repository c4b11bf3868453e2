package turncache

import (
	"testing"

	"smriti"
)

// A resolved log bound is remembered with the session's turns, for the
// space they were cached in only.
func TestTurnCacheRemembersTheLogBound(t *testing.T) {
	c := New(DefaultBytes)
	se, space, other := smriti.NewID(), smriti.NewID(), smriti.NewID()
	c.SetBound(se, &space, 7, 3)
	if _, ok := c.Bound(se, &space, 7); ok {
		t.Fatal("a session not in the cache remembered a bound")
	}
	c.Add(se, &space, []*smriti.Turn{{Seq: 0, LogPos: 5}, {Seq: 1, LogPos: 9}})
	c.SetBound(se, &space, 7, 1)
	if seq, ok := c.Bound(se, &space, 7); !ok || seq != 1 {
		t.Fatalf("bound after 7 = %d, %v; want 1, true", seq, ok)
	}
	if _, ok := c.Bound(se, &space, 8); ok {
		t.Fatal("a bound for another position was answered")
	}
	if _, ok := c.Bound(se, &other, 7); ok {
		t.Fatal("a bound was answered for another space")
	}
}
