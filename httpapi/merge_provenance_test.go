package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/internal/textutil"
	"smriti/render"
	"smriti/store/storetest"
	"smriti/wire"
)

// A merge conflict resolved "theirs" or "ours", end to end over HTTP: the
// merge's row of the item holds the chosen side's source (the session,
// turns and quote the offline mock's draft recorded), the version turned
// down is in the item's history as "rejected" at the merge, and the
// history's latest entry, `smriti why` and the state all say the kept text.
func TestMergeResolutionProvenance(t *testing.T) {
	const was, mainText, branchText = "Access token TTL is 15 minutes", "Access token TTL is 30 minutes", "Access token TTL is 5 minutes"
	for _, choice := range []string{smriti.ChooseTheirs, smriti.ChooseOurs} {
		t.Run(choice, func(t *testing.T) {
			e := newEnv(t)
			sp, main := e.spaceSession(t)
			base := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(main.ID.String()),
				ContentFields: wire.ContentFields{Message: strp("Auth"), Decisions: []string{was}}})).Must(t)
			ttl := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, base.ID)).Must(t), was)
			e.exchange(t, main.ID, "Decision: access token TTL is 30 minutes", "OK.")
			_, mhead := e.draftAndSave(t, sp, main.ID)
			branch := e.fork(t, sp, base.ID, "short-ttl")
			e.exchange(t, branch, "Decision: access token TTL is 5 minutes", "OK.")
			_, b1 := e.draftAndSave(t, sp, branch)
			// A classic commit on the branch carries the change: the branch
			// head's row of the item records no source of its own.
			b2 := storetest.Get(e.c.Commit(bg, wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(branch.String()),
				ContentFields: wire.ContentFields{Message: strp("Rotation"), Decisions: []string{branchText, "Rotate refresh tokens"}}})).Must(t)

			req := wire.MergeRequest{SpaceID: strp(sp.ID.String()), SourceCheckpointID: strp(b2.ID.String()),
				Resolutions: []smriti.MergeResolution{{Field: "decisions", Key: ttl.ID, Choice: choice}}}
			m := storetest.Get(e.c.Merge(bg, req)).Must(t).Checkpoint

			zero := int64(0)
			mainSrc := smriti.ItemSource{SessionID: &main.ID, FromSeq: &zero, ToSeq: &zero, Quote: strp("Decision: access token TTL is 30 minutes")}
			branchSrc := smriti.ItemSource{SessionID: &branch, FromSeq: &zero, ToSeq: &zero, Quote: strp("Decision: access token TTL is 5 minutes")}
			kept, rejected, keptSrc, rejectedSrc, rejectedSide, before := branchText, mainText, branchSrc, mainSrc, "ours", strp(mainText)
			if choice == smriti.ChooseOurs {
				kept, rejected, keptSrc, rejectedSrc, rejectedSide, before = mainText, branchText, mainSrc, branchSrc, "theirs", nil
			}
			wantChange := smriti.ItemChange{Op: smriti.OpUpdate, Before: before, Source: keptSrc, Merge: &smriti.ItemMerge{Choice: choice,
				Rejected: []smriti.RejectedVersion{{Side: rejectedSide, Text: &rejected, Source: rejectedSrc}}}}
			js := func(v any) string { b, _ := json.Marshal(v); return string(b) }

			t.Run("MergeItemHoldsTheChosenSource", func(t *testing.T) {
				row := itemByText(t, storetest.Get(e.c.CheckpointItems(bg, m.ID)).Must(t), kept)
				if row.ID != ttl.ID || js(row.Change) != js(wantChange) {
					t.Errorf("merge row %s change =\n%s\nwant\n%s", row.ID, js(row.Change), js(wantChange))
				}
			})

			t.Run("HistoryListsTheRejectedVersionBeforeTheKeptOne", func(t *testing.T) {
				h := storetest.Get(e.c.ItemHistory(bg, sp.ID, ttl.ID)).Must(t)
				type entry struct {
					Checkpoint smriti.ID
					Event      string
					Text       string
					Merge      bool
				}
				var got []entry
				for _, ev := range h.History {
					got = append(got, entry{ev.CheckpointID, ev.Event, ev.Text, ev.Merge})
				}
				want := []entry{
					{base.ID, "introduced", was, false},
					{mhead.ID, "changed", mainText, false},
					{b1.ID, "changed", branchText, false},
					{m.ID, "rejected", rejected, true},
					{m.ID, "changed", kept, true},
				}
				if js(got) != js(want) {
					t.Fatalf("history =\n%s\nwant\n%s", js(got), js(want))
				}
				if r := h.History[3]; js(r.Change.Source) != js(rejectedSrc) {
					t.Errorf("rejected entry source = %s, want %s", js(r.Change.Source), js(rejectedSrc))
				}
				if last := h.History[4]; js(last.Change) != js(wantChange) {
					t.Errorf("latest entry change = %s, want %s", js(last.Change), js(wantChange))
				}
				if h.Item.Text != kept || js(h.Item.Change) != js(wantChange) {
					t.Errorf("item = %+v, want the kept %q", h.Item, kept)
				}

				why := render.RenderItem(wire.DomainItemAt(h))
				head := "## decision " + ttl.ID + " (open)\n\n" + kept + "\n\n"
				at := textutil.ShortHash(m.CommitHash) + " " + m.CreatedAt.UTC().Format("2006-01-02 15:04")
				tail := "- rejected in merge " + m.ID.String() + " on main (" + at + "): \"" + rejected + "\" from " + rejectedSide +
					" [session " + rejectedSrc.SessionID.String()[:8] + ", turns 0–0]\n  > " + *rejectedSrc.Quote + "\n" +
					"- changed on main (" + at + ", merge): kept \"" + kept + "\" from " + choice +
					" [session " + keptSrc.SessionID.String()[:8] + ", turns 0–0]\n  > " + *keptSrc.Quote + "\n"
				if !strings.HasPrefix(why, head) || !strings.HasSuffix(why, tail) {
					t.Errorf("why =\n%s\nwant it to start with\n%s\nand end with\n%s", why, head, tail)
				}
			})

			t.Run("StateSaysTheKeptText", func(t *testing.T) {
				st := storetest.Get(e.c.State(bg, sp.ID, client.StateOptions{})).Must(t)
				if st.Commit == nil || st.Commit.ID != m.ID || js(st.Commit.Decisions) != js([]string{kept, "Rotate refresh tokens"}) {
					t.Errorf("state commit = %+v, want the merge with %q", st.Commit, kept)
				}
			})
		})
	}
}
