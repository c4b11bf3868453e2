package portability_test

import (
	"slices"
	"testing"

	"smriti"
	"smriti/portability"
	"smriti/records"
	"smriti/secretlog"
	"smriti/secrets/secretstest"
)

func TestSecretScannerNamesTheFieldThatHoldsTheSecret(t *testing.T) {
	secret := secretstest.FakeCredentials(1)[0].Text
	c := &records.BundleCheckpoint{ID: smriti.NewID(), Message: "m", Decisions: []string{"fine", secret},
		Tasks:     []smriti.Task{{Text: "ok"}, {Text: "ok", IntentHint: secret}},
		Artifacts: []smriti.Artifact{{Label: secret, Content: "x"}}, RawSourceText: &secret}
	var fields []string
	sc := &portability.SecretScanner{Found: func(s secretlog.StoredSecret) error {
		fields = append(fields, s.Field)
		return nil
	}}
	if err := sc.Write(records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: c}); err != nil {
		t.Fatal(err)
	}
	want := []string{"decisions[1]", "tasks[1].intent_hint", "artifacts[0].label", "raw_source_text"}
	if !slices.Equal(fields, want) {
		t.Fatalf("fields %q; want %q", fields, want)
	}
}
