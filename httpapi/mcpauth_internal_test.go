package httpapi

import (
	"fmt"
	"testing"
	"time"

	"smriti"
)

func TestSessionOwners(t *testing.T) {
	var o sessionOwners
	alice, bob := smriti.NewID(), smriti.NewID()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if o.holds("s1", alice, t0) {
		t.Fatal("an id never bound is held")
	}
	o.bind("s1", alice, t0)
	if !o.holds("s1", alice, t0) || o.holds("s1", bob, t0) {
		t.Fatal("s1 is alice's alone")
	}
	o.forget("s1")
	if o.holds("s1", alice, t0) {
		t.Fatal("a deleted session is still held")
	}

	// Full of sessions: no room while they are live, however idle the
	// limit; the idle ones make room once past the limit and its grace.
	for i := range maxMCPSessions {
		o.bind(fmt.Sprint("s", i), alice, t0)
	}
	o.holds("s0", alice, t0.Add(90*time.Minute)) // s0 stays in use
	if o.room(t0.Add(time.Hour), time.Hour) || o.room(t0.Add(24*time.Hour), 0) {
		t.Fatal("room while every session is live, or with no idle limit")
	}
	if !o.room(t0.Add(time.Hour+2*time.Minute), time.Hour) {
		t.Fatal("no room after the sessions went idle")
	}
	if len(o.by) != 1 || !o.holds("s0", alice, t0.Add(2*time.Hour)) {
		t.Fatalf("after dropping the idle bindings %d remain, want s0 alone", len(o.by))
	}
}
