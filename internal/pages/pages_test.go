package pages_test

import (
	"errors"
	"strings"
	"testing"

	"smriti/internal/pages"
)

func TestAllReadsEveryPage(t *testing.T) {
	byCursor := map[string][]int{"": {1, 2}, "b": {3}, "c": {4, 5}}
	next := map[string]string{"": "b", "b": "c", "c": ""}
	var asked []string
	got, err := pages.All(func(after string) ([]int, string, error) {
		asked = append(asked, after)
		return byCursor[after], next[after], nil
	})
	if err != nil || len(got) != 5 || got[4] != 5 || strings.Join(asked, ",") != ",b,c" {
		t.Fatalf("got %v %v after %q, want 1..5 after \"\",b,c", got, err, asked)
	}
	boom := errors.New("down")
	if _, err := pages.All(func(string) ([]int, string, error) { return nil, "", boom }); err != boom {
		t.Fatalf("err = %v, want the fetch's", err)
	}
}
