package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/internal/synthbundle"
	"smriti/portability"
	"smriti/store"
)

// TestVerifyLongChainPageByPage: a verification reads a long chain a page
// at a time and still checks every checkpoint, items included, against its
// parent's stored hash; with two rows edited on different pages it names
// the newer one.
func TestVerifyLongChainPageByPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chain.bundle")
	const n = 450 // three pages
	space, err := synthbundle.WriteFile(path, n, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name string
		open func(*testing.T) *store.Store
	}{{"SQLite", OpenSQLite}, {"Postgres", OpenPostgres}} {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t)
			ctx := context.Background()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = portability.ImportSpace(ctx, s, f, false)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var chain []smriti.ID
			rows, err := s.DB().Query(s.Rebind(`SELECT id FROM checkpoints WHERE space_id = ? ORDER BY log_pos DESC`), space)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id smriti.ID
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				chain = append(chain, id)
			}
			rows.Close()
			if len(chain) != n {
				t.Fatalf("imported %d checkpoints; want %d", len(chain), n)
			}
			head := chain[0]
			if v, err := s.VerifyCheckpoint(ctx, head); err != nil || !v.OK || v.Checked != n || v.FirstMismatch != nil {
				t.Fatalf("untouched chain: %+v, %v; want ok, %d checked", v, err, n)
			}
			// An item of a checkpoint on the second page, and the root's
			// message on the third.
			edited, root := chain[250], chain[n-1]
			if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoint_items SET text = 'rewritten history' WHERE checkpoint_id = ? AND position = 1`), edited); err != nil {
				t.Fatal(err)
			}
			if _, err := s.DB().Exec(s.Rebind(`UPDATE checkpoints SET message = 'rewritten root' WHERE id = ?`), root); err != nil {
				t.Fatal(err)
			}
			v, err := s.VerifyCheckpoint(ctx, head)
			if err != nil || v.OK || v.Checked != n || v.FirstMismatch == nil || *v.FirstMismatch != edited {
				t.Fatalf("edited chain: %+v, %v; want a mismatch first at %s, %d checked", v, err, edited, n)
			}
			if v, err := s.VerifyCheckpoint(ctx, chain[300]); err != nil || v.OK || v.Checked != n-300 || *v.FirstMismatch != root {
				t.Fatalf("below the edited item: %+v, %v; want a mismatch at the root %s, %d checked", v, err, root, n-300)
			}
		})
	}
}
