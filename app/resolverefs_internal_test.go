package app

import (
	"testing"

	"smriti"
)

func TestPickByPrefix(t *testing.T) {
	a, b := smriti.NewID(), smriti.NewID()
	many := make([]smriti.ID, maxRefCandidates)
	for _, c := range []struct {
		name       string
		candidates []smriti.ID
		want       smriti.ID
		code, msg  string
	}{
		{"OneIsPicked", []smriti.ID{a}, a, "", ""},
		{"NoneIsNotFound", nil, smriti.NilID, smriti.ENOTFOUND, `Session not found: no session starts with "abcd"`},
		{"TwoAreAmbiguous", []smriti.ID{a, b}, smriti.NilID, smriti.EINVALID, `2 sessions start with "abcd": give more characters of the id`},
		{"AFullReadSaysAtLeast", many, smriti.NilID, smriti.EINVALID, `at least 10 sessions start with "abcd": give more characters of the id`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := pickByPrefix("session", "abcd", c.candidates)
			if got != c.want || smriti.ErrorCode(err) != c.code || (err != nil && smriti.ErrorMessage(err) != c.msg) {
				t.Fatalf("pick = %s, %v; want %s, %s %q", got, err, c.want, c.code, c.msg)
			}
		})
	}
}
