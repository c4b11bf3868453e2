package app_test

import (
	"context"
	"testing"

	"smriti"
	"smriti/account"
	"smriti/app"
)

func TestGateAdmitsCallsWithoutAPrincipal(t *testing.T) {
	g := app.NewGate(app.GateConfig{RatePerMinute: 1, Burst: 1})
	for i := range 3 {
		if err := g.Admit(context.Background(), smriti.NewID()); err != nil {
			t.Fatalf("call %d with no principal: %v, want nil", i, err)
		}
	}
}

func TestGateSpendsEachPrincipalsAllowance(t *testing.T) {
	g := app.NewGate(app.GateConfig{RatePerMinute: 1, Burst: 2})
	alice := app.WithPrincipal(context.Background(), &account.Principal{UserID: smriti.NewID()})
	bob := app.WithPrincipal(context.Background(), &account.Principal{UserID: smriti.NewID()})
	for i := range 2 {
		if err := g.Admit(alice); err != nil {
			t.Fatalf("alice call %d: %v, want nil", i, err)
		}
	}
	err := g.Admit(alice)
	if smriti.ErrorCode(err) != smriti.ETOOMANY || app.RetryAfter(err) != 60 ||
		err.Error() != "rate limit for LLM-backed calls reached (1 per minute); retry in 60 s" {
		t.Fatalf("third call: %v (retry %d), want ETOOMANY with retry 60", err, app.RetryAfter(err))
	}
	if err := g.Admit(bob); err != nil {
		t.Fatalf("bob has his own allowance: %v", err)
	}
}

func TestGateChecksTheRoleInEveryNamedSpace(t *testing.T) {
	readable, writable, unknown := smriti.NewID(), smriti.NewID(), smriti.NewID()
	var asked []smriti.ID
	g := app.NewGate(app.GateConfig{Roles: func(_ context.Context, id smriti.ID) (account.Role, error) {
		asked = append(asked, id)
		switch id {
		case readable:
			return account.RoleViewer, nil
		case writable:
			return account.RoleEditor, nil
		}
		return "", smriti.Errorf(smriti.ENOTFOUND, "Space not found")
	}})
	ctx := app.WithPrincipal(context.Background(), &account.Principal{UserID: smriti.NewID()})
	if err := g.Admit(ctx, writable, unknown); err != nil {
		t.Fatalf("editor, unknown left to the use case: %v, want nil", err)
	}
	if err := g.Admit(ctx, writable, readable); smriti.ErrorCode(err) != smriti.EFORBIDDEN {
		t.Fatalf("viewer: %v, want EFORBIDDEN", err)
	}
	if len(asked) != 4 {
		t.Fatalf("asked %v, want every id once per call", asked)
	}
}
