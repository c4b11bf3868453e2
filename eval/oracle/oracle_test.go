package oracle

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"smriti"
	"smriti/intelligence"
	"smriti/provider"
)

// oracleAnswer drafts turns onto base items with the oracle and returns
// its operations as "op|kind|id|text|by|reason|from_seq" lines.
func oracleAnswer(t *testing.T, o Oracle, items []smriti.Item, turns []*smriti.Turn) []string {
	t.Helper()
	base := &smriti.Checkpoint{ID: smriti.NewID()}
	c, err := o.Complete(context.Background(), intelligence.CompletionRequest{
		Messages: intelligence.DraftChangesPrompt(base, items, turns), Schema: intelligence.DraftChangesSchema()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := intelligence.ParseChangeReply(c.Text, false)
	if err != nil {
		t.Fatalf("the oracle's answer does not parse: %v\n%s", err, c.Text)
	}
	var out []string
	for _, op := range r.Ops {
		from := int64(-1)
		if op.FromSeq != nil {
			from = *op.FromSeq
		}
		out = append(out, op.Op+"|"+op.Kind+"|"+op.ID+"|"+op.Text+"|"+op.By+"|"+op.Reason+"|"+strconv.FormatInt(from, 10))
	}
	return out
}

func TestOracleAnswersFromBaseAndTurns(t *testing.T) {
	items := []smriti.Item{
		{ID: "d-000001", Kind: smriti.KindDecision, Text: "Pricing is $12 [d:pricing]", Status: smriti.ItemOpen},
		{ID: "t-000002", Kind: smriti.KindTask, Text: "Write docs [t:docs]", Status: smriti.ItemOpen},
		{ID: "a-000003", Kind: smriti.KindAssumption, Text: "EU first [a:eu]", Status: smriti.ItemOpen},
		{ID: "d-000004", Kind: smriti.KindDecision, Text: "An untagged decision", Status: smriti.ItemOpen},
	}
	turns := []*smriti.Turn{
		{Seq: 0, Role: smriti.RoleUser, Content: "[change d:pricing] Pricing is $14\n[resolve t:docs] on the site"},
		{Seq: 1, Role: smriti.RoleAssistant, Content: "[retract a:eu] an assistant's marker is not the user's"},
		{Seq: 2, Role: smriti.RoleUser, Content: "[retract a:eu] moved\n[task t:new] Ship it\n[change t:new] Ship it today"},
		{Seq: 4, Role: smriti.RoleUser, Content: "[ask q:gone] Temporary?\n[resolve q:gone] yes\n[task t:quick] Quick fix\n[resolve t:quick] fixed"},
	}
	want := []string{
		"update||d-000001|Pricing is $14 [d:pricing]|||0",
		"resolve||t-000002||on the site||0",
		"retract||a-000003|||moved|2",
		"add|task||Ship it today [t:new]|||2",
		"resolve|task||Quick fix [t:quick]|fixed||4",
	}
	if got := oracleAnswer(t, Oracle{}, items, turns); !reflect.DeepEqual(got, want) {
		t.Fatalf("ops:\n%q\nwant\n%q", got, want)
	}
	t.Run("BlindBaseAddsWhatItCannotFind", func(t *testing.T) {
		got := oracleAnswer(t, Oracle{Blind: BlindBase}, items, turns[:1])
		if want := []string{"add|decision||Pricing is $14 [d:pricing]|||0"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("ops %q, want %q", got, want)
		}
	})
	t.Run("BlindTurnsSkipsEveryOtherUserTurn", func(t *testing.T) {
		got := oracleAnswer(t, Oracle{Blind: BlindTurns}, items, turns)
		if len(got) != 3 || got[2] != "resolve|task||Quick fix [t:quick]|fixed||4" {
			t.Fatalf("ops %q: want turn 2's three markers skipped", got)
		}
	})
}

// TestOracleIsTheMockElsewhere: anything but a change-list draft is the
// mock's answer, so registering the oracle changes no mock behaviour.
func TestOracleIsTheMockElsewhere(t *testing.T) {
	for _, req := range []intelligence.CompletionRequest{
		{Messages: []intelligence.Message{{Role: "user", Content: "hello"}}},
		{Messages: intelligence.ReviewPrompt(&smriti.Checkpoint{}, nil, nil, nil), Schema: intelligence.ReviewSchema()},
	} {
		got, err := Oracle{}.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := provider.Mock{}.Complete(context.Background(), req)
		if got.Text != want.Text {
			t.Fatalf("oracle %q, mock %q", got.Text, want.Text)
		}
	}
	r := provider.New(nil, provider.WithOracle(Oracle{}))
	p, err := r.Provider(provider.ProviderOracle)
	if err != nil || p.Name() != provider.ProviderOracle || r.DefaultModel(provider.ProviderOracle) != "oracle" {
		t.Fatalf("registry oracle: %v %v", p, err)
	}
}
