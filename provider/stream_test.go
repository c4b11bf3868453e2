package provider

import (
	"context"
	"net/http"
	"smriti/intelligence"
	"strings"
	"testing"
)

// Every streaming adapter delivers the pieces as they come and ends with
// the whole text, the model that answered and the usage it reported.
func TestStreamDeliversDeltasAndUsage(t *testing.T) {
	for _, tt := range []struct {
		provider, path string
		events         []string
		deltas, text   string
		model          string
		usage          intelligence.Usage
		flags          [][]any // request body paths that must be true
	}{
		{intelligence.ProviderOpenAI, "/v1", openAIStream, "Hel|lo, |world.", "Hello, world.", "gpt-4o-mini-2024-07-18",
			intelligence.Usage{InputTokens: 31, OutputTokens: 4}, [][]any{{"stream"}, {"stream_options", "include_usage"}}},
		{intelligence.ProviderAnthropic, "", anthropicTextStream, "Hello| from Claude.", "Hello from Claude.", "claude-sonnet-4-5-20250929",
			intelligence.Usage{InputTokens: 25, OutputTokens: 15}, [][]any{{"stream"}}},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			srv := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeSSE(w, tt.events...) })
			p := providerAt(t, tt.provider, srv.URL+tt.path)
			var deltas []string
			got, err := p.Stream(context.Background(), chatRequest, func(s string) error {
				deltas = append(deltas, s)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(deltas, "|") != tt.deltas {
				t.Errorf("deltas = %q", deltas)
			}
			if got.Text != tt.text || got.Model != tt.model {
				t.Errorf("completion = %+v", got)
			}
			if got.Usage != tt.usage {
				t.Errorf("usage = %+v", got.Usage)
			}
			rec := srv.only(t)
			for _, f := range tt.flags {
				if get(rec.Body, f...) != true {
					t.Errorf("%v not sent as true: %v", f, rec.Body)
				}
			}
		})
	}
}
