package app

import (
	"container/list"
	"context"
	"strings"
	"sync"

	"smriti"
	"smriti/intelligence"
)

// A checkpoint is immutable, so the system message a send renders from its
// checkpoints, and that message's token count, are the same for every send
// that carries them: stateCache keeps them, keyed by the checkpoints' ids
// and hashes. Sessions on the same head share an entry; replicas each keep
// their own and agree, since the key names content that never changes. The
// cache is bounded by bytes, least recently used first out.
//
// A send therefore reads its checkpoints' identity (one query for the head)
// and nothing else of them, except the first time a list is seen.

// DefaultStateCacheBytes bounds the state cache: a 300-item checkpoint
// renders to about 20 kB, a 3,000-item one to about 200 kB.
const DefaultStateCacheBytes = 4 << 20

// stateEntryOverhead is what an entry costs beyond its texts: the entry,
// its list element, its map slot and a few token counts.
const stateEntryOverhead = 384

type stateCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   list.List // of *stateEntry, most recently used at the front
	byKey map[string]*list.Element
	epoch int64 // the store's CacheEpoch the entries were read at
}

// at drops every entry when the store's cache epoch is not the one they
// were read at: a purge on another server rewrote checkpoints in place,
// keeping their hashes.
func (c *stateCache) at(epoch int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		c.dropLocked()
		c.epoch = epoch
	}
}

// stateEntry is the system message of one list of checkpoints and its
// token counts by provider and model (each counted on first use).
type stateEntry struct {
	key    string
	system string
	counts map[string]int // guarded by the cache's mutex
	bytes  int64
}

func newStateCache(limit int64) *stateCache {
	return &stateCache{limit: limit, byKey: map[string]*list.Element{}}
}

// stateKey names a list of checkpoints (oldest first) by what makes its
// rendering what it is: each one's id and hash.
func stateKey(cps []*smriti.Checkpoint) string {
	var b strings.Builder
	for _, c := range cps {
		b.WriteString(c.ID.String())
		b.WriteByte(':')
		b.WriteString(c.Hash)
		b.WriteByte(',')
	}
	return b.String()
}

func (c *stateCache) get(key string) *stateEntry {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*stateEntry)
}

// add keeps e unless it alone is over the bound, evicting the least
// recently used entries until it fits; it returns the entry kept for the
// key (an earlier one when two sends rendered the same list at once).
func (c *stateCache) add(e *stateEntry) *stateEntry {
	if c == nil {
		return e
	}
	e.bytes = int64(len(e.key)+len(e.system)) + stateEntryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*stateEntry)
	}
	if e.bytes > c.limit {
		return e
	}
	for c.used+e.bytes > c.limit {
		old := c.lru.Back()
		c.lru.Remove(old)
		oe := old.Value.(*stateEntry)
		delete(c.byKey, oe.key)
		c.used -= oe.bytes
	}
	c.byKey[e.key] = c.lru.PushFront(e)
	c.used += e.bytes
	return e
}

// tokens is the entry's system message counted for provider and model,
// counted once.
func (c *stateCache) tokens(e *stateEntry, counter intelligence.TokenCounter, provider, model string) int {
	k := provider + "\x00" + model
	if c != nil {
		c.mu.Lock()
		n, ok := e.counts[k]
		c.mu.Unlock()
		if ok {
			return n
		}
	}
	n, _ := counter.CountTokens(provider, model, e.system)
	if c != nil {
		c.mu.Lock()
		if e.counts == nil {
			e.counts = map[string]int{}
		}
		e.counts[k] = n
		c.mu.Unlock()
	}
	return n
}

// state is the system message for heads, the checkpoints of a send read
// without their content (oldest first): from the cache, or rendered from
// the checkpoints read in full the first time. A checkpoint that changed
// between the two reads (deleted and another written) is ENOTFOUND, as the
// read of a missing checkpoint is.
func (c *Chat) state(ctx context.Context, heads []*smriti.Checkpoint) (*stateEntry, error) {
	if len(heads) == 0 {
		return &stateEntry{system: intelligence.SystemPrompt(nil)}, nil
	}
	key := stateKey(heads)
	if c.epoch != nil {
		c.cache.at(c.epoch())
	}
	if e := c.cache.get(key); e != nil {
		return e, nil
	}
	full := make([]*smriti.Checkpoint, len(heads))
	for i, h := range heads {
		cp, err := c.Checkpoints.Checkpoint(ctx, h.ID)
		if err != nil {
			return nil, err
		}
		if cp.Hash != h.Hash {
			return nil, smriti.Errorf(smriti.ENOTFOUND, "Checkpoint %s changed while it was read", h.ID)
		}
		full[i] = cp
	}
	return c.cache.add(&stateEntry{key: key, system: intelligence.SystemPrompt(full)}), nil
}

// clear empties the cache.
func (c *stateCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked()
}

func (c *stateCache) dropLocked() {
	c.lru.Init()
	c.byKey = map[string]*list.Element{}
	c.used = 0
}
