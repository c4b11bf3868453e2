package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"smriti/intelligence"
	"smriti/provider/mockderive"
)

func TestMockText(t *testing.T) {
	long := strings.Repeat("é", 250)
	cases := []struct {
		name string
		req  intelligence.CompletionRequest
		want string
	}{
		{"EchoesLastUserMessageAndContext", intelligence.CompletionRequest{
			Model: "gpt-4o",
			Messages: []intelligence.Message{
				{Role: "system", Content: "sys"}, {Role: "user", Content: "first"},
				{Role: "assistant", Content: "reply"}, {Role: "user", Content: "What did we decide?"},
			},
			Annotations: map[string]string{"mode": "latest_3", "checkpoints": "a1b2c3d,e4f5a6b", "turns": "12", "other": "ignored"},
		}, `[mock:gpt-4o] You said: "What did we decide?". Context: mode=latest_3 checkpoints=a1b2c3d,e4f5a6b turns=12.`},
		{"OmitsAbsentContextFields", intelligence.CompletionRequest{
			Model:       "m",
			Messages:    []intelligence.Message{{Role: "user", Content: "hi"}},
			Annotations: map[string]string{"turns": "0"},
		}, `[mock:m] You said: "hi". Context: turns=0.`},
		{"NoAnnotations", intelligence.CompletionRequest{
			Messages: []intelligence.Message{{Role: "user", Content: `say "x"`}},
		}, `[mock:mock] You said: "say "x"".`},
		{"NoUserMessage", intelligence.CompletionRequest{Model: "m"}, `[mock:m] You said: "Hello".`},
		{"TruncatesTo200Characters", intelligence.CompletionRequest{
			Model: "m", Messages: []intelligence.Message{{Role: "user", Content: long}},
		}, `[mock:m] You said: "` + strings.Repeat("é", 200) + `".`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Mock{}.Complete(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tc.want {
				t.Errorf("text = %q\nwant   %q", got.Text, tc.want)
			}
			again, _ := Mock{}.Complete(context.Background(), tc.req)
			if again.Text != got.Text {
				t.Error("mock is not deterministic")
			}
		})
	}
}

func TestMockStructuredUsesDerivation(t *testing.T) {
	req := intelligence.CompletionRequest{Model: "m", Schema: draftSchema, Messages: []intelligence.Message{{Role: "user", Content: "turns..."}}}
	got, err := Mock{}.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != mockderive.Reply(req) {
		t.Errorf("text = %q, want DeriveStructuredReply's", got.Text)
	}
}

func TestMockStreamSendsWords(t *testing.T) {
	req := intelligence.CompletionRequest{Model: "m", Messages: []intelligence.Message{{Role: "user", Content: "one two three"}}}
	var deltas []string
	got, err := Mock{}.Stream(context.Background(), req, func(s string) error { deltas = append(deltas, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 3 || strings.Join(deltas, "") != got.Text {
		t.Errorf("deltas %q do not make up %q", deltas, got.Text)
	}
	stop := errors.New("stop")
	n := 0
	if _, err := (Mock{}).Stream(context.Background(), req, func(string) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("onDelta error: err %v after %d deltas", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Mock{}).Stream(ctx, req, func(string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled stream err = %v", err)
	}
}

func TestMockUsageEstimate(t *testing.T) {
	req := intelligence.CompletionRequest{Model: "m", Messages: []intelligence.Message{{Role: "system", Content: "12345"}, {Role: "user", Content: "1234"}}}
	got, _ := Mock{}.Complete(context.Background(), req)
	if got.Usage.InputTokens != 3 || got.Usage.OutputTokens != (len(got.Text)+3)/4 {
		t.Errorf("usage = %+v for text of %d bytes", got.Usage, len(got.Text))
	}
}
