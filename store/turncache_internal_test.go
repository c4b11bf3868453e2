package store

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"smriti/contract"
	"smriti/internal/estimate"
	"strings"
	"testing"

	"smriti"
)

// TestTurnCacheBoundCoversItsMemory fills the cache through the real read
// and write paths of a SQLite store and compares the Go heap it holds with
// the bytes it counts: the bound must be a bound on memory, not on content.
func TestTurnCacheBoundCoversItsMemory(t *testing.T) {
	for _, size := range []int{20, 3000} {
		t.Run(fmt.Sprintf("Content%dBytes", size), func(t *testing.T) {
			ctx := smriti.WithUser(context.Background(), smriti.NewID())
			s, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.SetTurnCacheBytes(0) // writes stay out of the cache until measured
			const sessions, exchanges = 16, 30
			var live []*smriti.Session
			for i := range sessions {
				se, err := s.CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})
				if err != nil {
					t.Fatal(err)
				}
				for j := range exchanges {
					u := fmt.Sprintf("%d %d %s", i, j, strings.Repeat("u", size))
					a := fmt.Sprintf("%d %d %s", i, j, strings.Repeat("a", size))
					if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
						User:      contract.TurnWrite{Content: u, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(u)},
						Assistant: contract.TurnWrite{Content: a, Provider: "mock", Model: "mock", Tokens: estimate.Tokens(a)}}); err != nil {
						t.Fatal(err)
					}
				}
				cur, err := s.Session(ctx, se.ID)
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, cur)
			}

			s.SetTurnCacheBytes(64 << 20)
			before := heapInUse()
			for _, se := range live {
				// Half the history read back, then a send written on top: both
				// paths that put turns into the cache.
				if _, err := s.History(ctx, se, contract.HistoryQuery{Budget: exchanges * estimate.Tokens(strings.Repeat("u", size))}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
					User:      contract.TurnWrite{Content: "one more " + strings.Repeat("u", size), Provider: "mock", Model: "mock", Tokens: 1},
					Assistant: contract.TurnWrite{Content: "and " + strings.Repeat("a", size), Provider: "mock", Model: "mock", Tokens: 1}}); err != nil {
					t.Fatal(err)
				}
			}
			held := heapInUse() - before
			entries, counted := s.TurnCacheSize()
			if entries != sessions {
				t.Fatalf("cache holds %d sessions, want %d", entries, sessions)
			}
			t.Logf("content %d B: heap held %d B, cache counts %d B (%.2f)", size, held, counted, float64(held)/float64(counted))
			if held > counted {
				t.Fatalf("the cached turns hold %d bytes of heap but the cache counts %d: the bound undercounts", held, counted)
			}
			if held < counted*3/4 {
				t.Fatalf("the cached turns hold %d bytes of heap but the cache counts %d: the bound overcounts by more than a third", held, counted)
			}
			runtime.KeepAlive(live)
		})
	}
}

// heapInUse is the Go heap held by live objects after a full collection.
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
