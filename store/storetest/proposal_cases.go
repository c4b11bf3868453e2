package storetest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"smriti"
	"smriti/portability"
	"smriti/proposal"
	"smriti/store"
)

// proposalCases: drafts saved for later, on both engines.
var proposalCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"ProposalLifecycle", testProposalLifecycle},
	{"ProposalRefusals", testProposalRefusals},
	{"ProposalsTravelInBundles", testProposalsInBundles},
	{"ProposalReplacesTheSessionsPendingDraft", testProposalReplaces},
}

func proposalIn(sp *smriti.Space, se *smriti.Session, base *smriti.Checkpoint, title string) *proposal.Proposal {
	from := int64(0)
	return &proposal.Proposal{SpaceID: sp.ID, SessionID: &se.ID, BaseCheckpointID: &base.ID, BranchName: smriti.MainBranch, Source: "hook",
		Draft: smriti.ProposalDraft{Content: smriti.Content{Message: title, Summary: "where things stand",
			Decisions: []string{"Use SQLite", "Ship weekly"}, Tasks: []smriti.Task{{Text: "Write docs", ID: "t1", Structured: true}}},
			Items: []smriti.Item{{ID: "d-0123456789ab", Kind: smriti.KindDecision, Text: "Ship weekly", Status: smriti.ItemOpen,
				Origin: smriti.ItemOrigin{SessionID: &se.ID, FromSeq: &from},
				Refs:   []smriti.ItemRef{{Path: "cli/retry.go", Lines: &smriti.LineRange{From: 3, To: 4}, Commit: strings.Repeat("ab", 20), SpanHash: strings.Repeat("cd", 32)}}}},
			SourceTurns: &smriti.SourceTurns{SessionID: se.ID, FromSeq: 0, ToSeq: 1}}}
}

func testProposalLifecycle(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "proposals"})).Must(t)
	se := newSession(t, ctx, s, sp)
	send(t, ctx, s, se, "hello")
	base := commit(t, ctx, s, sp, se, "Base", "Use SQLite")
	in := proposalIn(sp, se, base, "Weekly releases")
	p := Get(s.CreateProposal(ctx, in)).Must(t)
	if p.Status != proposal.Pending || p.ID == smriti.NilID || p.CheckpointID != nil || p.DecidedAt != nil || !p.CreatedAt.Equal(p.UpdatedAt) {
		t.Fatalf("created %+v", p)
	}
	if len(p.Draft.Items) != 1 || !reflect.DeepEqual(p.Draft.Items[0].Refs, in.Draft.Items[0].Refs) {
		t.Fatalf("the item's refs read back as %+v, want %+v", p.Draft.Items, in.Draft.Items[0].Refs)
	}
	if store.EncodeProposalDraft(p.Draft) != store.EncodeProposalDraft(in.Draft) {
		t.Fatalf("draft read back as\n%+v\nwant\n%+v", p.Draft, in.Draft)
	}
	got := Get(s.Proposal(ctx, p.ID)).Must(t)
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("Proposal = %+v, want %+v", got, p)
	}
	second := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "Second"))).Must(t)
	list := Get(s.Proposals(ctx, sp.ID, "")).Must(t)
	if len(list) != 2 || list[0].ID != second.ID || list[1].ID != p.ID {
		t.Fatalf("list = %v, want the second then the first", titles(list))
	}
	edited := in.Draft
	edited.Content.Message, edited.Content.Decisions = "Weekly releases (edited)", []string{"Use SQLite", "Ship every Friday"}
	up := Get(s.UpdateProposalDraft(ctx, p.ID, edited)).Must(t)
	if up.Draft.Content.Message != "Weekly releases (edited)" || !reflect.DeepEqual(up.Draft.Content.Decisions, edited.Content.Decisions) {
		t.Fatalf("edited = %+v", up.Draft.Content)
	}
	accepted := Get(s.SetProposalStatus(ctx, p.ID, proposal.Pending, proposal.Accepted, &base.ID)).Must(t)
	if accepted.Status != proposal.Accepted || accepted.CheckpointID == nil || *accepted.CheckpointID != base.ID || accepted.DecidedAt == nil {
		t.Fatalf("accepted = %+v", accepted)
	}
	_, err := s.SetProposalStatus(ctx, p.ID, proposal.Pending, proposal.Accepted, nil)
	wantCode(t, err, smriti.ECONFLICT)
	if want := "Proposal " + p.ID.String() + " is already accepted"; smriti.ErrorMessage(err) != want {
		t.Fatalf("accept twice: %q, want %q", smriti.ErrorMessage(err), want)
	}
	_, err = s.UpdateProposalDraft(ctx, p.ID, edited)
	wantCode(t, err, smriti.ECONFLICT)
	Get(s.SetProposalStatus(ctx, second.ID, proposal.Pending, proposal.Rejected, nil)).Must(t)
	for status, want := range map[string]int{proposal.Pending: 0, proposal.Accepted: 1, proposal.Rejected: 1} {
		if n := len(Get(s.Proposals(ctx, sp.ID, status)).Must(t)); n != want {
			t.Fatalf("%d %s proposals, want %d", n, status, want)
		}
	}
	// A failed accept puts a proposal back: accepted → pending clears the decision.
	back := Get(s.SetProposalStatus(ctx, p.ID, proposal.Accepted, proposal.Pending, nil)).Must(t)
	if back.Status != proposal.Pending || back.DecidedAt != nil || back.CheckpointID != nil {
		t.Fatalf("back to pending: %+v", back)
	}
	// Deleting the space deletes its proposals.
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Proposal(ctx, p.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}

func titles(ps []*proposal.Proposal) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Draft.Content.Message)
	}
	return out
}

func testProposalRefusals(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "a"})).Must(t)
	other := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "b"})).Must(t)
	se := newSession(t, ctx, s, sp)
	ose := newSession(t, ctx, s, other)
	base := commit(t, ctx, s, sp, se, "Base", "Use SQLite")
	obase := commit(t, ctx, s, other, ose, "Other", "Use Go")

	bad := proposalIn(sp, se, base, "x")
	bad.Source = "email"
	_, err := s.CreateProposal(ctx, bad)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	blank := proposalIn(sp, se, base, "  ")
	_, err = s.CreateProposal(ctx, blank)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	_, err = s.CreateProposal(ctx, proposalIn(sp, se, obase, "base of another space"))
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.CreateProposal(ctx, proposalIn(sp, ose, base, "session of another space"))
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.Proposals(ctx, sp.ID, "maybe")
	wantCode(t, err, smriti.EUNPROCESSABLE)

	p := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "mine"))).Must(t)
	stranger := userCtx()
	_, err = s.Proposal(stranger, p.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.Proposals(stranger, sp.ID, "")
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SetProposalStatus(stranger, p.ID, proposal.Pending, proposal.Rejected, nil)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.Proposal(ctx, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
}

func testProposalsInBundles(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "bundled"})).Must(t)
	se := newSession(t, ctx, s, sp)
	send(t, ctx, s, se, "hello")
	base := commit(t, ctx, s, sp, se, "Base", "Use SQLite")
	pending := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "Waiting"))).Must(t)
	done := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "Taken"))).Must(t)
	done = Get(s.SetProposalStatus(ctx, done.ID, proposal.Pending, proposal.Accepted, &base.ID)).Must(t)
	b := exportBytes(t, ctx, s, sp.ID)

	// Deleted, then imported with its ids: every field is kept.
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	Get(portability.ImportSpace(ctx, s, bytes.NewReader(b), false)).Must(t)
	for _, want := range []*proposal.Proposal{pending, done} {
		got := Get(s.Proposal(ctx, want.ID)).Must(t)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("imported\n%+v\nwant\n%+v", got, want)
		}
	}
	// As new: new ids, pointing at the new session and checkpoints.
	fresh := Get(portability.ImportSpace(ctx, s, bytes.NewReader(b), true)).Must(t)
	list := Get(s.Proposals(ctx, fresh.ID, "")).Must(t)
	if len(list) != 2 {
		t.Fatalf("%d proposals after import as new, want 2", len(list))
	}
	for _, p := range list {
		if p.ID == pending.ID || p.ID == done.ID || *p.SessionID == se.ID || *p.BaseCheckpointID == base.ID || p.Draft.SourceTurns.SessionID == se.ID ||
			*p.Draft.Items[0].Origin.SessionID == se.ID {
			t.Fatalf("import as new kept an old id: %+v", p)
		}
		if *p.SessionID != p.Draft.SourceTurns.SessionID {
			t.Fatalf("the session and the source turns' session differ: %+v", p)
		}
	}
}

// One open proposal per agent session: a newer hook draft of the session
// supersedes the pending one (kept, with its status and when), and leaves
// other sessions', other sources' and decided proposals alone.
func testProposalReplaces(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := Get(s.CreateSpace(ctx, smriti.SpaceCreate{Name: "replaces"})).Must(t)
	se, other := newSession(t, ctx, s, sp), newSession(t, ctx, s, sp)
	send(t, ctx, s, se, "hello")
	base := commit(t, ctx, s, sp, se, "Base", "Use SQLite")
	first := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "First"))).Must(t)
	decided := Get(s.CreateProposal(ctx, proposalIn(sp, se, base, "Decided"))).Must(t)
	Get(s.SetProposalStatus(ctx, decided.ID, proposal.Pending, proposal.Rejected, nil)).Must(t)
	fromCLI := proposalIn(sp, se, base, "From the CLI")
	fromCLI.Source = "cli"
	cli := Get(s.CreateProposal(ctx, fromCLI)).Must(t)
	elsewhere := Get(s.CreateProposal(ctx, proposalIn(sp, other, base, "Other session"))).Must(t)
	second, replaced, err := s.ReplaceProposals(ctx, proposalIn(sp, se, base, "Second"))
	if err != nil {
		t.Fatal(err)
	}
	if len(replaced) != 1 || replaced[0].ID != first.ID || replaced[0].Status != proposal.Superseded || replaced[0].DecidedAt == nil ||
		!replaced[0].DecidedAt.Equal(second.CreatedAt) {
		t.Fatalf("replaced = %+v, want the first, superseded when the second was saved", replaced)
	}
	pending := Get(s.Proposals(ctx, sp.ID, proposal.Pending)).Must(t)
	if got, want := strings.Join(titles(pending), "|"), "Second|Other session|From the CLI"; got != want {
		t.Fatalf("pending = %q, want %q", got, want)
	}
	sup := Get(s.Proposals(ctx, sp.ID, proposal.Superseded)).Must(t)
	if len(sup) != 1 || sup[0].ID != first.ID {
		t.Fatalf("superseded = %v, want the first", titles(sup))
	}
	for _, id := range []smriti.ID{decided.ID, cli.ID, elsewhere.ID} {
		if p := Get(s.Proposal(ctx, id)).Must(t); p.Status == proposal.Superseded {
			t.Fatalf("%s was superseded", p.Draft.Content.Message)
		}
	}
	// A superseded proposal is decided: it cannot be accepted.
	_, err = s.SetProposalStatus(ctx, first.ID, proposal.Pending, proposal.Accepted, nil)
	wantCode(t, err, smriti.ECONFLICT)
	_, _, err = s.ReplaceProposals(ctx, &proposal.Proposal{SpaceID: sp.ID, Source: "hook", Draft: smriti.ProposalDraft{Content: smriti.Content{Message: "x"}}})
	wantCode(t, err, smriti.EINVALID)
}
