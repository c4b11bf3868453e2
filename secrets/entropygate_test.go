package secrets

import (
	"reflect"
	"testing"

	"smriti/secrets/secretstest"
)

// The shortcuts in front of generic-api-key (a value its entropy check or
// its stop words drop is not looked at) find exactly what running the rule
// finds, over every corpus: credentials in their contexts, ordinary
// messages, and the cost cases.
func TestEntropyGateChangesNoFinding(t *testing.T) {
	texts := append(secretstest.OrdinaryMessages(), proseMessage, denseMessage, worstMessage, keysMessage)
	for _, c := range secretstest.FakeCredentials(400) {
		texts = append(texts, c.Text)
	}
	for _, text := range texts {
		gated = true
		with := Find(text)
		gated = false
		without := Find(text)
		gated = true
		if !reflect.DeepEqual(with, without) {
			t.Errorf("%q: with the shortcuts %+v, without %+v", text, with, without)
		}
	}
}
