package intelligence

import (
	"errors"
	"testing"
)

func TestExtractJSONObject(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{"PlainObject", `{"a":1}`, `{"a":1}`, nil},
		{"FencedJSON", "Here you go:\n```json\n{\"a\": 1}\n```\nThanks!", `{"a": 1}`, nil},
		{"FencedWithoutLanguage", "```\n{\"a\": 1}\n```", `{"a": 1}`, nil},
		{"ProseBeforeAndAfter", `Sure! {"a": {"b": [1, 2]}} Hope that helps.`, `{"a": {"b": [1, 2]}}`, nil},
		{"LeadingBOM", "\ufeff{\"a\":1}", `{"a":1}`, nil},
		{"BracesInsideStrings", `{"a": "} { ] [", "b": "\"}"}`, `{"a": "} { ] [", "b": "\"}"}`, nil},
		{"ProseBracesBeforeObject", `Use {placeholders} like this: {"a": 1}`, `{"a": 1}`, nil},
		{"ProseBracketsBeforeObject", `[note] result: {"a": 1}`, `{"a": 1}`, nil},
		{"FenceBeatsProseBraces", "The {x} field:\n```json\n{\"x\": 2}\n```", `{"x": 2}`, nil},
		{"FirstOfTwoObjects", `{"a":1} {"b":2}`, `{"a":1}`, nil},
		{"InlineFenceSpan", "```{\"a\":1}```", `{"a":1}`, nil},
		{"TopLevelArray", `[{"a": 1}]`, "", errJSONArray},
		{"ArrayAfterProse", `Here: [{"a": 1}, {"b": 2}]`, "", errJSONArray},
		{"FencedArray", "```json\n[1, 2]\n```", "", errJSONArray},
		{"Truncated", `{"title": "x", "decisions": ["a", "b`, "", errJSONTruncated},
		{"TruncatedWithCompleteNestedObject", `{"tasks": [{"text": "a"}, {"text": "b"`, "", errJSONTruncated},
		{"TruncatedInsideUnclosedFence", "```json\n{\"a\": [1, 2", "", errJSONTruncated},
		{"InvalidObjectSaysWhy", `{"a": 1,}`, "", errInvalidJSON},
		{"ProseBracesAreNotInvalidJSON", `Use {placeholders} here.`, "", ErrNoJSONObject},
		{"NoJSON", "I cannot help with that.", "", ErrNoJSONObject},
		{"Empty", "", "", ErrNoJSONObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractJSONObject(tt.in)
			if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Fatalf("extractJSONObject(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
	if errJSONArray.Error() != "expected a JSON object, got an array" || errJSONTruncated.Error() != "the JSON is incomplete (truncated?)" {
		t.Fatal("error texts are part of the retry prompt and must not drift")
	}
}
