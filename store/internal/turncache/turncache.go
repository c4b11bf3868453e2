// Package turncache keeps the recent turns of hot sessions in memory for
// the store's history reads.
package turncache

import (
	"container/list"
	"sync"

	"smriti"
)

// Cache keeps the recent turns of hot sessions in memory, least
// recently used first out, within a byte limit. Turns are append-only and
// their content never changes once written; their log positions change only
// when the session is attached to another space (an entry remembers the
// space, and one of another space is dropped) and the whole cache is dropped
// when the database itself is another (see dbx.Topology). What the cache may
// lack is newer turns (written by another server on the same database), and
// the reader asks the database for exactly those — the ones above the newest
// sequence number it holds.
//
// An entry is a contiguous run of one session's turns, oldest first, holding
// only what a prompt needs (sequence number, log position, role, content,
// token count). Readers take a snapshot of an entry's slice under the lock
// and read it without the lock: writers only append past a snapshot's end or
// re-slice, never overwrite an element a snapshot can see.
type Cache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   list.List // of *cacheEntry, most recently used at the front
	byID  map[smriti.ID]*list.Element
}

type cacheEntry struct {
	session smriti.ID
	// space is the session's space when its turns were cached (zero for
	// none): attaching the session to another space renumbers its turns'
	// log positions, so an entry of another space is dropped, not served.
	space smriti.ID
	turns []*smriti.Turn // ascending, consecutive sequence numbers
	bytes int64
	// budget is the largest history budget served from the entry; a smaller
	// one does not trim what a larger one needs.
	budget int
	// afterPos and firstAfter remember a resolved log bound: the session's
	// first turn after log position afterPos is firstAfter (set once
	// there is such a turn; it never changes while the entry lives, since
	// later turns take later positions). A HEAD send asks this for its
	// checkpoint's position every time.
	afterPos, firstAfter int64
	hasBound             bool
}

// What the cache counts for its memory, measured against the Go heap by
// the store's TestTurnCacheBoundCoversItsMemory so that the bound is a bound on memory:
// a turn costs its struct (160 bytes), its slot in a slice that grows by
// doubling (up to 16), and its content rounded up to the allocator's size
// class (at most an eighth more, and a little for short strings); an entry
// costs its struct, list element and map slot.
const (
	turnOverhead  = 160 + 16 + 16
	entryOverhead = 256
)

// DefaultBytes is the turn cache's default memory bound: with it
// full, an idle server stays within SPEC's 30 MB resident set. It holds the
// windows of about a hundred sessions of a few dozen turns; a team server
// with many hot sessions raises it (serve --turn-cache-mb).
const DefaultBytes = 4 << 20

func New(limit int64) *Cache {
	return &Cache{limit: limit, byID: map[smriti.ID]*list.Element{}}
}

func turnBytes(ts []*smriti.Turn) int64 {
	var n int64
	for _, t := range ts {
		n += int64(len(t.Content)+len(t.Content)/8) + turnOverhead
	}
	return n
}

// SetLimit changes the bound, evicting at once what no longer fits; 0
// turns the cache off.
func (c *Cache) SetLimit(limit int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = max(0, limit)
	c.evictLocked()
}

// Get returns a snapshot of the session's cached turns (nil when none) while
// the session is in space (nil: none); an entry cached while it was in
// another space is dropped.
func (c *Cache) Get(id smriti.ID, space *smriti.ID) []*smriti.Turn {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return nil
	}
	if el.Value.(*cacheEntry).space != spaceKey(space) {
		c.removeLocked(el)
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).turns
}

// Add records turns (ascending, consecutive) read or written for a session
// and returns the entry's snapshot afterwards. Turns that continue the entry
// are appended, turns that end just before it are prepended; turns that are
// not contiguous with it replace it when they are newer and are dropped when
// older.
func (c *Cache) Add(id smriti.ID, space *smriti.ID, ts []*smriti.Turn) []*smriti.Turn {
	return c.put(id, space, ts, true)
}

// spaceKey is the entry's form of a session's space.
func spaceKey(space *smriti.ID) smriti.ID {
	if space == nil {
		return smriti.ID{}
	}
	return *space
}

func (c *Cache) put(id smriti.ID, space *smriti.ID, ts []*smriti.Turn, create bool) []*smriti.Turn {
	if len(ts) == 0 {
		return c.Get(id, space)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if ok && el.Value.(*cacheEntry).space != spaceKey(space) {
		c.removeLocked(el)
		ok = false
	}
	if !ok {
		if !create || c.limit <= 0 {
			return ts
		}
		e := &cacheEntry{session: id, space: spaceKey(space), turns: ts, bytes: entryOverhead + turnBytes(ts)}
		c.byID[id] = c.lru.PushFront(e)
		c.used += e.bytes
		c.evictLocked()
		return ts
	}
	e := el.Value.(*cacheEntry)
	c.lru.MoveToFront(el)
	lo, hi := e.turns[0].Seq, e.turns[len(e.turns)-1].Seq
	first, last := ts[0].Seq, ts[len(ts)-1].Seq
	var added []*smriti.Turn
	switch {
	case first <= hi+1 && last > hi: // continues the entry (perhaps overlapping)
		added = ts[hi+1-first:]
		e.turns = append(e.turns, added...)
	case last == lo-1: // just before it
		added = ts
		e.turns = append(append(make([]*smriti.Turn, 0, len(ts)+len(e.turns)), ts...), e.turns...)
	case first > hi+1: // newer, with a gap: start over from these
		c.used -= e.bytes - entryOverhead
		e.turns, e.bytes = ts, entryOverhead
		added = ts
	default: // already held, or older with a gap
		return e.turns
	}
	n := turnBytes(added)
	e.bytes += n
	c.used += n
	out := e.turns
	c.evictLocked()
	return out
}

// Bound returns the remembered first sequence number of the session's
// turns after log position pos, if the entry has it.
func (c *Cache) Bound(id smriti.ID, space *smriti.ID, pos int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return 0, false
	}
	e := el.Value.(*cacheEntry)
	if e.space != spaceKey(space) || !e.hasBound || e.afterPos != pos {
		return 0, false
	}
	return e.firstAfter, true
}

// SetBound remembers that the session's first turn after log position pos
// is seq (see cacheEntry); a session not in the cache stays out.
func (c *Cache) SetBound(id smriti.ID, space *smriti.ID, pos, seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return
	}
	e := el.Value.(*cacheEntry)
	if e.space != spaceKey(space) {
		return
	}
	e.afterPos, e.firstAfter, e.hasBound = pos, seq, true
}

// Extend appends turns that continue a session's entry; a session not in
// the cache stays out (it is not known to be hot).
func (c *Cache) Extend(id smriti.ID, space *smriti.ID, ts []*smriti.Turn) {
	c.put(id, space, ts, false)
}

// Trim drops the session's turns older than seq keep once budget is at least
// the largest budget the entry has served.
func (c *Cache) Trim(id smriti.ID, keep int64, budget int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return
	}
	e := el.Value.(*cacheEntry)
	if budget < e.budget {
		return
	}
	e.budget = budget
	// Keep some slack for concurrent sends that read a slightly older
	// snapshot, and trim in steps so a send does not copy on every call.
	const slack = 64
	drop := int(keep-e.turns[0].Seq) - slack
	if drop < slack || drop >= len(e.turns) {
		return
	}
	n := turnBytes(e.turns[:drop])
	e.turns = e.turns[drop:]
	e.bytes -= n
	c.used -= n
}

// Clear forgets every session.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	c.byID = map[smriti.ID]*list.Element{}
	c.used = 0
}

// Drop forgets a session.
func (c *Cache) Drop(id smriti.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.removeLocked(el)
	}
}

func (c *Cache) evictLocked() {
	for c.used > c.limit && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.byID, e.session)
	c.used -= e.bytes
}

// Size reports the entries and bytes held.
func (c *Cache) Size() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.used
}
