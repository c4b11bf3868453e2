package storetest

import (
	"reflect"
	"testing"
	"time"

	"smriti"
	"smriti/account"
	"smriti/receipt"
	"smriti/store"
)

var receiptCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"ReceiptsRoundTripNewestFirst", testReceiptsRoundTrip},
	{"ReceiptsNeedWriteToAddAndMembershipToRead", testReceiptsAccess},
}

func receiptOf(sp *smriti.Space, cp *smriti.ID, at time.Time, status string, missing ...string) *receipt.Receipt {
	return &receipt.Receipt{ID: smriti.NewID(), SpaceID: sp.ID, AgentSession: "5e55a0e1-1111-4222-8333-444455556666",
		Host: receipt.HostCodex, Event: "SessionStart", Trigger: "auto", CheckpointID: cp,
		LiveIDs: []string{"d-000001", "t-000002", "a-000003"}, InjectedIDs: []string{"a-000003"}, OmittedIDs: []string{"d-000001", "t-000002"},
		MissingIDs: missing, ListCommand: "smriti state demo --all", Tokens: 412, Status: status, CreatedAt: at}
}

func testReceiptsRoundTrip(t *testing.T, s *store.Store) {
	ctx := userCtx()
	sp := newSpace(t, ctx, s)
	se := newSession(t, ctx, s, sp)
	cp := commit(t, ctx, s, sp, se, "one")
	if got := Get(s.Receipts(ctx, sp.ID, 0)).Must(t); len(got) != 0 || got == nil {
		t.Fatalf("receipts of a new space = %#v, want []", got)
	}
	at := time.Date(2026, 12, 3, 10, 14, 0, 0, time.UTC)
	first := receiptOf(sp, &cp.ID, at, receipt.Incomplete, "d-000001", "t-000002")
	second := receiptOf(sp, nil, at.Add(time.Minute), receipt.Complete)
	second.Host, second.Event, second.Trigger, second.MissingIDs = receipt.HostClaudeCode, "PostCompact", "", nil
	for _, r := range []*receipt.Receipt{first, second} {
		if err := s.AddReceipt(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got := Get(s.Receipts(ctx, sp.ID, 0)).Must(t)
	if len(got) != 2 {
		t.Fatalf("got %d receipts, want 2", len(got))
	}
	second.MissingIDs = []string{} // stored as [] and read back as []
	for i, want := range []*receipt.Receipt{second, first} {
		got[i].CreatedAt = got[i].CreatedAt.UTC()
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("receipt %d =\n%+v\nwant\n%+v", i, got[i], want)
		}
	}
	if one := Get(s.Receipts(ctx, sp.ID, 1)).Must(t); len(one) != 1 || one[0].ID != second.ID {
		t.Fatalf("limit 1 = %+v, want the newest", one)
	}
	bad := receiptOf(sp, nil, at, "lost")
	wantCode(t, s.AddReceipt(ctx, bad), smriti.EINTERNAL)
	_, err := s.Receipts(ctx, smriti.NewID(), 0)
	wantCode(t, err, smriti.ENOTFOUND)
	if err := s.DeleteSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Receipts(ctx, sp.ID, 0)
	wantCode(t, err, smriti.ENOTFOUND)
}

func testReceiptsAccess(t *testing.T, s *store.Store) {
	_, alice := newUser(t, s, "owner")
	bob, bobCtx := newUser(t, s, "bob")
	sp := newSpace(t, alice, s)
	at := time.Date(2026, 12, 3, 10, 14, 0, 0, time.UTC)
	// Not a member: the space does not exist for bob.
	wantCode(t, s.AddReceipt(bobCtx, receiptOf(sp, nil, at, receipt.Complete)), smriti.ENOTFOUND)
	_, err := s.Receipts(bobCtx, sp.ID, 0)
	wantCode(t, err, smriti.ENOTFOUND)
	// A viewer reads receipts but cannot add one.
	Get(s.SetMember(alice, sp.ID, bob.ID, account.RoleViewer)).Must(t)
	if err := s.AddReceipt(alice, receiptOf(sp, nil, at, receipt.Complete)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.AddReceipt(bobCtx, receiptOf(sp, nil, at, receipt.Complete)), smriti.EFORBIDDEN)
	if got := Get(s.Receipts(bobCtx, sp.ID, 0)).Must(t); len(got) != 1 {
		t.Fatalf("viewer sees %d receipts, want 1", len(got))
	}
}
