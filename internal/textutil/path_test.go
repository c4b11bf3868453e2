package textutil

import "testing"

func TestPathProblem(t *testing.T) {
	for _, tc := range []struct {
		path string
		max  int
		want string
	}{
		{"cmd/smriti/main.go", 500, ""},
		{"", 500, "is empty"},
		{"a/b/../c.go", 500, "must be a clean path inside the project root"},
		{"../outside.go", 500, "must be a clean path inside the project root"},
		{"/etc/passwd", 500, "must be relative to the project root"},
		{`dir\file.go`, 500, "must use forward slashes and hold no control characters"},
		{"0123456789a", 10, "is longer than 10 characters"},
	} {
		if got := PathProblem(tc.path, tc.max); got != tc.want {
			t.Errorf("PathProblem(%q, %d) = %q, want %q", tc.path, tc.max, got, tc.want)
		}
	}
}
