package nonnil

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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

func TestConvert(t *testing.T) {
	got := Convert([]int{1, 2, 3}, func(i int) string { return strings.Repeat("x", i) })
	if !slices.Equal(got, []string{"x", "xx", "xxx"}) {
		t.Fatalf("Convert = %q", got)
	}
	if empty := Convert([]int(nil), strconv.Itoa); empty == nil || len(empty) != 0 {
		t.Fatalf("Convert(nil) = %#v, want an empty non-nil slice", empty)
	}
}
