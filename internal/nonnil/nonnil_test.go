package nonnil

import (
	"encoding/json"
	"testing"
)

func TestNilBecomesEmpty(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{"NilSlice", Slice([]string(nil)), `[]`},
		{"Slice", Slice([]int{1, 2}), `[1,2]`},
		{"NilMap", Map(map[string]any(nil)), `{}`},
		{"Map", Map(map[string]int{"a": 1}), `{"a":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil || string(b) != tt.want {
				t.Fatalf("got %s %v, want %s", b, err, tt.want)
			}
		})
	}
}
