package httpapi_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// itemVersion is one version of an item as the server that wrote it
// answers for it.
type itemVersion struct {
	name, text, status string
}

// makeItemVersions writes main's line in a new space: a first checkpoint
// adding 10 decisions, then 11 checkpoints each updating two of them (by
// id) and adding one — 43 item versions in all. It returns the space, the
// versions in the order they were made, and the head.
func makeItemVersions(t *testing.T, e *testEnv) (wire.Repo, []itemVersion, *wire.Commit) {
	t.Helper()
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Versions"), Description: new("")})).Must(t)
	var texts []string
	for i := range 10 {
		texts = append(texts, fmt.Sprintf("Decision %d, first wording", i))
	}
	var versions []itemVersion
	var ids []string
	var head *wire.Commit
	commit := func(msg string, edits []wire.ItemIn) {
		head = storetest.Get(e.c.CommitToSpace(bg, sp.ID, wire.SpaceCommitRequest{
			ContentFields: wire.ContentFields{Message: strp(msg), Decisions: append([]string(nil), texts...)},
			ItemFields:    wire.ItemFields{Items: edits}})).Must(t)
		items := storetest.Get(e.c.CheckpointItems(bg, head.ID)).Must(t)
		ids = ids[:0]
		for _, it := range items {
			ids = append(ids, it.ID)
			if it.Change == nil {
				continue
			}
			want := smriti.ItemVersion{ItemID: it.ID, Hash: head.CommitHash}.String()
			if it.Version == nil || *it.Version != want {
				t.Fatalf("%s: item %s version = %v, want %s", msg, it.ID, it.Version, want)
			}
			versions = append(versions, itemVersion{name: want, text: it.Text, status: it.Status})
		}
	}
	commit("Ten decisions", nil)
	for n := 2; n <= 12; n++ {
		var edits []wire.ItemIn
		for _, k := range []int{n % len(texts), (n + 3) % len(texts)} {
			texts[k] = fmt.Sprintf("Decision %d, reworded in checkpoint %d", k, n)
			edits = append(edits, wire.ItemIn{ID: ids[k], Kind: string(smriti.KindDecision), Text: texts[k]})
		}
		texts = append(texts, fmt.Sprintf("Decision %d, added in checkpoint %d", len(texts), n))
		commit(fmt.Sprintf("Checkpoint %d", n), edits)
	}
	return *sp, versions, head
}

// resolveAll resolves every version name on e, by its full name and by
// its hash's first 8 digits, and counts those that answer the version's
// text and status.
func resolveAll(t *testing.T, e *testEnv, space smriti.ID, versions []itemVersion) int {
	t.Helper()
	resolved := 0
	for _, v := range versions {
		ok := true
		for _, name := range []string{v.name, v.name[:len("d-000000@")+smriti.MinVersionPrefix]} {
			h, err := e.c.ItemHistory(bg, space, name)
			if err != nil || h.Version != v.name || h.Item.Text != v.text || h.Item.Status != v.status ||
				h.Item.Version == nil || *h.Item.Version != v.name {
				t.Errorf("%s: got %+v, %v; want %q (%s)", name, h, err, v.text, v.status)
				ok = false
			}
		}
		if ok {
			resolved++
		}
	}
	return resolved
}

// TestItemVersionsResolveOnACopyOfTheSpace: 43 item versions made on a
// laptop (SQLite) resolve 43/43, to the same text and status, on a copy —
// a bundle imported elsewhere, or a fresh clone — on SQLite and on
// PostgreSQL.
func TestItemVersionsResolveOnACopyOfTheSpace(t *testing.T) {
	byImport := func(t *testing.T, to, from *testEnv, space smriti.ID) {
		res := storetest.Get(to.c.ImportSpace(bg, bytes.NewReader(export(t, from, space)), false)).Must(t)
		if res.Repo.ID != space {
			t.Fatalf("the copy's space id = %s, want %s", res.Repo.ID, space)
		}
	}
	for _, target := range []struct {
		name   string
		opts   []envOption
		copyOf func(t *testing.T, to, from *testEnv, space smriti.ID)
	}{
		{"BundleToSQLite", nil, byImport},
		{"BundleToPostgreSQL", []envOption{withPostgres()}, byImport},
		{"CloneToSQLite", nil, clone},
		{"CloneToPostgreSQL", []envOption{withPostgres()}, clone},
	} {
		t.Run(target.name, func(t *testing.T) {
			copyEnv := newEnv(t, target.opts...)
			orig := newEnv(t)
			sp, versions, head := makeItemVersions(t, orig)
			if len(versions) != 43 {
				t.Fatalf("made %d item versions, want 43", len(versions))
			}
			if n := resolveAll(t, orig, sp.ID, versions); n != 43 {
				t.Fatalf("resolved %d/43 on the original", n)
			}
			target.copyOf(t, copyEnv, orig, sp.ID)
			if n := resolveAll(t, copyEnv, sp.ID, versions); n != 43 {
				t.Fatalf("resolved %d/43 on the copy", n)
			}

			// The head's items name the same versions on both copies; a
			// carried item names the checkpoint that last changed it.
			a := storetest.Get(orig.c.CheckpointItems(bg, head.ID)).Must(t)
			b := storetest.Get(copyEnv.c.CheckpointItems(bg, head.ID)).Must(t)
			latest := map[string]string{}
			for _, v := range versions {
				id, _, _ := strings.Cut(v.name, "@")
				latest[id] = v.name
			}
			if len(a) != 21 || len(b) != len(a) {
				t.Fatalf("head items: %d on the original, %d on the copy; want 21", len(a), len(b))
			}
			for i := range a {
				if a[i].Version == nil || b[i].Version == nil || *a[i].Version != latest[a[i].ID] || *b[i].Version != *a[i].Version {
					t.Errorf("head item %s: version %v on the original, %v on the copy; want %s", a[i].ID, a[i].Version, b[i].Version, latest[a[i].ID])
				}
			}

			// Search finds a version by its name, on the copy too.
			for _, e := range []*testEnv{orig, copyEnv} {
				v := versions[20]
				hits := storetest.Get(e.c.Search(bg, client.SearchParams{Q: v.name, SpaceID: &sp.ID})).Must(t)
				if len(hits.Results) != 1 || hits.Results[0].ItemVersion == nil || *hits.Results[0].ItemVersion != v.name ||
					hits.Results[0].Snippet != v.text || hits.Results[0].Kind != "checkpoint" {
					t.Fatalf("search %s = %+v", v.name, hits.Results)
				}
			}
		})
	}
}

func TestItemRouteTakesAVersionName(t *testing.T) {
	e := newEnv(t)
	sp, versions, _ := makeItemVersions(t, e)
	first := versions[2] // "Decision 2, first wording", reworded by checkpoint 2
	id, hash, _ := strings.Cut(first.name, "@")

	t.Run("EarlierVersion", func(t *testing.T) {
		h := storetest.Get(e.c.ItemHistory(bg, sp.ID, id+"@"+hash[:12])).Must(t)
		if h.Item.Text != "Decision 2, first wording" || h.Version != first.name || h.Latest {
			t.Fatalf("item = %+v, version %s, latest %v", h.Item, h.Version, h.Latest)
		}
		newest := storetest.Get(e.c.ItemHistory(bg, sp.ID, id)).Must(t)
		if !newest.Latest || newest.Item.Text != "Decision 2, reworded in checkpoint 2" || len(newest.History) != len(h.History) {
			t.Fatalf("newest = %+v", newest)
		}
		for _, ev := range h.History {
			if ev.Version == nil || *ev.Version != (smriti.ItemVersion{ItemID: id, Hash: ev.CommitHash}.String()) {
				t.Fatalf("history entry %+v: version %v", ev, ev.Version)
			}
		}
	})
	t.Run("UnknownVersionIs404", func(t *testing.T) {
		_, err := e.c.ItemHistory(bg, sp.ID, id+"@00000000")
		wantCode(t, err, smriti.ENOTFOUND)
		if got, want := smriti.ErrorMessage(err), "Item "+id+" has no version 00000000 in this space; its versions: "; len(got) < len(want) || got[:len(want)] != want {
			t.Fatalf("detail = %q, want it to start with %q", got, want)
		}
	})
	t.Run("UnknownItemIs404", func(t *testing.T) {
		_, err := e.c.ItemHistory(bg, sp.ID, "d-000000@"+hash)
		wantCode(t, err, smriti.ENOTFOUND)
		if got := smriti.ErrorMessage(err); got != "Item d-000000 not found in this space" {
			t.Fatalf("detail = %q", got)
		}
	})
	t.Run("MalformedIs400", func(t *testing.T) {
		for name, detail := range map[string]string{
			id + "@3f9a1c2":        `item version "` + id + `@3f9a1c2": give at least 8 hex digits of the version's checkpoint hash`,
			"x-7f3a9c@3f9a1c2b":    `item version "x-7f3a9c@3f9a1c2b": "x-7f3a9c" is not an item id (a kind letter d, a, t, q or e, a dash and 6 to 16 hex digits, e.g. d-7f3a9c)`,
			id + "@not-hex-digits": `item version "` + id + `@not-hex-digits": the version must be hex digits of a checkpoint hash (at most 64)`,
		} {
			_, err := e.c.ItemHistory(bg, sp.ID, name)
			wantCode(t, err, smriti.EINVALID)
			if got := smriti.ErrorMessage(err); got != detail {
				t.Errorf("%s: detail = %q, want %q", name, got, detail)
			}
		}
	})
	t.Run("SearchForAVersionNameOfNoVersionFindsNothing", func(t *testing.T) {
		hits := storetest.Get(e.c.Search(bg, client.SearchParams{Q: id + "@00000000"})).Must(t)
		if len(hits.Results) != 0 {
			t.Fatalf("hits = %+v", hits.Results)
		}
	})
}
