package app_test

import (
	"context"
	"smriti/app"
	"testing"

	"smriti"
)

func TestAdmitLLM(t *testing.T) {
	a, b := smriti.NewID(), smriti.NewID()
	if err := app.AdmitLLM(context.Background(), a); err != nil {
		t.Fatalf("no gate: %v, want nil", err)
	}
	var asked []smriti.ID
	ctx := app.WithLLMGate(context.Background(), func(_ context.Context, ids ...smriti.ID) error {
		asked = append(asked, ids...)
		return smriti.Errorf(smriti.ETOOMANY, "slow down")
	})
	err := app.AdmitLLM(ctx, a, b)
	if smriti.ErrorCode(err) != smriti.ETOOMANY || err.Error() != "slow down" || len(asked) != 2 || asked[0] != a || asked[1] != b {
		t.Fatalf("gate: %v asked %v, want ETOOMANY \"slow down\" asked [%s %s]", err, asked, a, b)
	}
}
