package storetest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"smriti"
	"smriti/store"
)

var mergeProvenanceCases = []struct {
	name string
	fn   func(*testing.T, *store.Store, Merge)
}{
	{"MergeResolvedTheirsRecordsTheBranchSource", func(t *testing.T, s *store.Store, m Merge) { testMergeProvenance(t, s, m, smriti.ChooseTheirs) }},
	{"MergeResolvedOursRejectsTheBranchChange", func(t *testing.T, s *store.Store, m Merge) { testMergeProvenance(t, s, m, smriti.ChooseOurs) }},
	{"CommitCannotForgeAMergeRejection", testCommitCannotForgeMergeRecord},
	{"MergeKeepingARemovalRecordsTheRejectedEdit", testMergeKeepsRemoval},
	{"SecondMergePreviewListsEveryRemoval", testSecondMergeListsEveryRemoval},
}

// testMergeKeepsRemoval: main retracted a decision the branch edited; the
// merge resolves "ours" (the removal). The merge writes its own tombstone
// of the item (main's head no longer holds it) with the branch's edit as
// the version turned down, so the edit is not the item's latest word.
func testMergeKeepsRemoval(t *testing.T, s *store.Store, merge Merge) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	mainSe, branchSe := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	base := commit(t, ctx, s, sp, mainSe, "Sessions", "Use Redis for sessions", "Use Go")
	redis := itemNamed(t, Get(s.CheckpointItems(ctx, base.ID)).Must(t), "Use Redis for sessions")
	removed := commit(t, ctx, s, sp, mainSe, "No Redis", "Use Go")
	id, from, to, quote := branchSe.ID, int64(3), int64(4), "Pin Redis 7"
	branchSrc := smriti.ItemSource{SessionID: &id, FromSeq: &from, ToSeq: &to, Quote: &quote}
	const edit = "Use Redis 7 for sessions"
	b1 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &base.ID, BranchName: "redis7",
		Content: smriti.Content{Message: "Redis 7", Summary: "summary of Sessions", Decisions: []string{edit, "Use Go"}},
		Items:   []smriti.Item{{ID: redis.ID, Kind: smriti.KindDecision, Text: edit, Change: &smriti.ItemChange{Op: smriti.OpUpdate, Source: branchSrc}}}})).Must(t)
	out := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: b1.ID, Resolutions: []smriti.MergeResolution{
		{Field: "decisions", Key: redis.ID, Choice: smriti.ChooseOurs}}})).Must(t)
	m := out.Checkpoint
	if jsonText(t, m.Decisions) != `["Use Go"]` {
		t.Fatalf("merged decisions = %q, want only \"Use Go\"", m.Decisions)
	}
	var row *smriti.Item
	items := Get(s.CheckpointItems(ctx, m.ID)).Must(t)
	for i := range items {
		if items[i].ID == redis.ID {
			row = &items[i]
		}
	}
	e := edit
	want := smriti.ItemChange{Op: smriti.OpRetract, Merge: &smriti.ItemMerge{Choice: smriti.ChooseOurs,
		Rejected: []smriti.RejectedVersion{{Side: smriti.ChooseTheirs, Text: &e, Source: branchSrc}}}}
	if row == nil || row.Status != smriti.ItemRetracted || row.Text != "Use Redis for sessions" || jsonText(t, row.Change) != jsonText(t, want) {
		t.Fatalf("merge's row of %s = %+v, want a retracted tombstone with change %s", redis.ID, row, jsonText(t, want))
	}
	evs := Get(s.ItemHistory(ctx, sp.ID, redis.ID)).Must(t)
	var got []string
	for _, ev := range evs {
		got = append(got, ev.CheckpointID.String()[:8]+" "+ev.KindFor(redis.ID)+" "+ev.Item.Text)
	}
	wantEvs := []string{base.ID.String()[:8] + " introduced Use Redis for sessions", removed.ID.String()[:8] + " retracted Use Redis for sessions",
		b1.ID.String()[:8] + " changed " + edit, m.ID.String()[:8] + " rejected " + edit, m.ID.String()[:8] + " retracted Use Redis for sessions"}
	if jsonText(t, got) != jsonText(t, wantEvs) {
		t.Errorf("history =\n%s\nwant\n%s", jsonText(t, got), jsonText(t, wantEvs))
	}
	if v := Get(s.VerifyCheckpoint(ctx, m.ID)).Must(t); !v.OK {
		t.Errorf("verify = %+v", v)
	}
}

// testCommitCannotForgeMergeRecord: a plain commit whose items claim a
// merge turned a version down stores no such record, so no "rejected"
// entry can be planted in an item's history by a writer that merged
// nothing.
func testCommitCannotForgeMergeRecord(t *testing.T, s *store.Store, _ Merge) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	a := commit(t, ctx, s, sp, se, "A", "TTL is 15 minutes")
	ttl := Get(s.CheckpointItems(ctx, a.ID)).Must(t)[0]
	forged := "TTL is 1 day"
	for _, text := range []string{"TTL is 15 minutes", "TTL is 30 minutes"} { // carried, then changed
		c := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID,
			Content: smriti.Content{Message: text, Decisions: []string{text}},
			Items: []smriti.Item{{ID: ttl.ID, Kind: smriti.KindDecision, Text: text, Change: &smriti.ItemChange{Op: smriti.OpUpdate,
				Merge: &smriti.ItemMerge{Choice: smriti.ChooseOurs, Rejected: []smriti.RejectedVersion{{Side: smriti.ChooseTheirs, Text: &forged}}}}}}})).Must(t)
		for _, it := range Get(s.CheckpointItems(ctx, c.ID)).Must(t) {
			if it.Change != nil && it.Change.Merge != nil {
				t.Errorf("commit %q stored a merge record %s", text, jsonText(t, it.Change.Merge))
			}
		}
	}
	for _, ev := range Get(s.ItemHistory(ctx, sp.ID, ttl.ID)).Must(t) {
		if ev.Rejected || ev.Item.Text == forged {
			t.Errorf("history has a forged entry %+v", ev)
		}
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testMergeProvenance: main and a branch each change one decision, the
// branch then commits again carrying it, and the merge resolves the
// conflict with choice. The merge's row of the item holds the chosen
// side's source (session, turns, quote) and the version it turned down; the
// item's history lists that version as rejected in the merge, and its
// latest entry is the version the merge kept.
func testMergeProvenance(t *testing.T, s *store.Store, merge Merge, choice string) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	mainSe, branchSe := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	src := func(se *smriti.Session, from, to int64, quote string) smriti.ItemSource {
		id := se.ID
		return smriti.ItemSource{SessionID: &id, FromSeq: &from, ToSeq: &to, Quote: &quote}
	}
	mainSrc, branchSrc := src(mainSe, 1, 2, "We agreed on 30 minutes"), src(branchSe, 0, 1, "Make it 5 minutes")
	const was, mainText, branchText = "Access token TTL is 15 minutes", "Access token TTL is 30 minutes", "Access token TTL is 5 minutes"

	base := commit(t, ctx, s, sp, mainSe, "Auth", was)
	ttl := Get(s.CheckpointItems(ctx, base.ID)).Must(t)[0]
	edit := func(text string, source smriti.ItemSource) []smriti.Item {
		return []smriti.Item{{ID: ttl.ID, Kind: smriti.KindDecision, Text: text, Change: &smriti.ItemChange{Op: smriti.OpUpdate, Source: source}}}
	}
	mainHead := Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: mainSe.ID,
		Content: smriti.Content{Message: "Longer TTL", Decisions: []string{mainText}}, Items: edit(mainText, mainSrc)})).Must(t)
	b1 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &base.ID, BranchName: "short-ttl",
		Content: smriti.Content{Message: "Short TTL", Decisions: []string{branchText}}, Items: edit(branchText, branchSrc)})).Must(t)
	// The branch head carries the change: its source is one checkpoint back.
	b2 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &b1.ID, BranchName: "short-ttl",
		Content: smriti.Content{Message: "Rotation", Decisions: []string{branchText, "Rotate refresh tokens"}}})).Must(t)

	out := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: b2.ID,
		Resolutions: []smriti.MergeResolution{{Field: "decisions", Key: ttl.ID, Choice: choice}}})).Must(t)
	m := out.Checkpoint
	kept, rejected, keptSrc, rejectedSrc, rejectedSide := branchText, mainText, branchSrc, mainSrc, smriti.ChooseOurs
	var before *string
	if choice == smriti.ChooseOurs {
		kept, rejected, keptSrc, rejectedSrc, rejectedSide = mainText, branchText, mainSrc, branchSrc, smriti.ChooseTheirs
	} else {
		before = &[]string{mainText}[0]
	}
	if got := jsonText(t, m.Decisions); got != jsonText(t, []string{kept, "Rotate refresh tokens"}) {
		t.Fatalf("merged decisions = %s, want %q then the branch's addition", got, kept)
	}
	wantChange := smriti.ItemChange{Op: smriti.OpUpdate, Before: before, Source: keptSrc, Merge: &smriti.ItemMerge{Choice: choice,
		Rejected: []smriti.RejectedVersion{{Side: rejectedSide, Text: &rejected, Source: rejectedSrc}}}}

	t.Run("MergeRowHoldsTheChosenSource", func(t *testing.T) {
		items := Get(s.CheckpointItems(ctx, m.ID)).Must(t)
		row := itemNamed(t, items, kept)
		if row.ID != ttl.ID || row.Status != smriti.ItemOpen || row.Change == nil {
			t.Fatalf("merge row = %+v", row)
		}
		if got, want := jsonText(t, row.Change), jsonText(t, wantChange); got != want {
			t.Errorf("merge row change =\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("HistoryRejectsTheOtherVersionAndEndsWithTheKeptOne", func(t *testing.T) {
		evs := Get(s.ItemHistory(ctx, sp.ID, ttl.ID)).Must(t)
		type row struct {
			Checkpoint smriti.ID
			Event      string
			Text       string
			Session    *smriti.ID
		}
		var got []row
		for _, ev := range evs {
			got = append(got, row{ev.CheckpointID, ev.KindFor(ttl.ID), ev.Item.Text, ev.Item.Change.Source.SessionID})
		}
		want := []row{
			{base.ID, smriti.EventIntroduced, was, nil},
			{mainHead.ID, smriti.EventChanged, mainText, &mainSe.ID},
			{b1.ID, smriti.EventChanged, branchText, &branchSe.ID},
			{m.ID, smriti.EventRejected, rejected, rejectedSrc.SessionID},
			{m.ID, smriti.EventChanged, kept, keptSrc.SessionID},
		}
		if jsonText(t, got) != jsonText(t, want) {
			t.Fatalf("history =\n%s\nwant\n%s", jsonText(t, got), jsonText(t, want))
		}
		last := evs[len(evs)-1]
		if last.Rejected || !last.Merge || jsonText(t, last.Item.Change) != jsonText(t, wantChange) {
			t.Errorf("latest entry = %+v, want the merge's kept version with change %s", last, jsonText(t, wantChange))
		}
		if r := evs[3]; !r.Rejected || !r.Merge || jsonText(t, r.Item.Change.Source) != jsonText(t, rejectedSrc) {
			t.Errorf("rejected entry = %+v, want the turned-down version's source %s", r, jsonText(t, rejectedSrc))
		}
	})

	t.Run("MergeVerifies", func(t *testing.T) {
		if v := Get(s.VerifyCheckpoint(ctx, m.ID)).Must(t); !v.OK {
			t.Errorf("verify = %+v", v)
		}
	})
}

// testSecondMergeListsEveryRemoval: main removed a decision before the
// branch was first merged; later main removes another and the branch a
// third. The second merge's base is the branch checkpoint the first merge
// took in, which still holds the first decision, so its preview lists all
// three removals, each with the side that removed it.
func testSecondMergeListsEveryRemoval(t *testing.T, s *store.Store, merge Merge) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	mainSe := newSession(t, ctx, s, sp)
	base := commit(t, ctx, s, sp, mainSe, "Base", "Use Go", "Use Redis", "Use Kafka", "Use S3")
	b1 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &base.ID, BranchName: "infra",
		Content: smriti.Content{Message: "Add Nginx", Summary: "summary of Base", Decisions: []string{"Use Go", "Use Redis", "Use Kafka", "Use S3", "Use Nginx"}}})).Must(t)
	commit(t, ctx, s, sp, mainSe, "No Go", "Use Redis", "Use Kafka", "Use S3")
	first := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: b1.ID})).Must(t)
	if got := removals(first.Removes); got != "Use Go:ours" {
		t.Fatalf("first merge removes %s, want Use Go:ours", got)
	}
	commit(t, ctx, s, sp, mainSe, "No Redis", "Use Kafka", "Use S3", "Use Nginx")
	b2 := Get(s.CreateCheckpoint(ctx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &b1.ID, BranchName: "infra",
		Content: smriti.Content{Message: "No Kafka", Summary: "summary of Base", Decisions: []string{"Use Go", "Use Redis", "Use S3", "Use Nginx"}}})).Must(t)
	second := Get(merge(ctx, s, MergeCall{SpaceID: sp.ID, SourceID: b2.ID, DryRun: true})).Must(t)
	if got, want := removals(second.Removes), "Use Go:ours, Use Kafka:theirs, Use Redis:ours"; got != want {
		t.Errorf("second merge's preview removes %s, want %s", got, want)
	}
	if got := jsonText(t, second.Merged.Decisions); got != `["Use S3","Use Nginx"]` {
		t.Errorf("second merge's decisions = %s", got)
	}
}

// removals lists removals as "text:side", sorted.
func removals(rs []smriti.MergeRemoval) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Text+":"+r.Side)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
