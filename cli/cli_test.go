package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"smriti"
)

func TestParseCheckpointJSON(t *testing.T) {
	for _, c := range []struct {
		name, in, wantErr string
	}{
		{"Object", `{"message": "m", "decisions": ["d"], "other": 1}`, ""},
		{"Blank", "  \n", "no checkpoint JSON provided"},
		{"Malformed", `{"message": `, "invalid JSON input"},
		{"Array", `[1]`, "must be an object, got: array"},
		{"String", `"x"`, "must be an object, got: string"},
		{"Null", `null`, "must be an object, got: null"},
		{"NoMessage", `{"summary": "s"}`, "non-empty 'message'"},
		{"BlankMessage", `{"message": "  "}`, "non-empty 'message'"},
		{"WrongType", `{"message": "m", "decisions": "d"}`, "invalid checkpoint JSON — decisions: expected an array of strings, got string"},
		{"WrongTypeMessage", `{"message": 5}`, "invalid checkpoint JSON — message: expected a string, got number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseCheckpointJSON([]byte(c.in))
			if c.wantErr == "" {
				if err != nil || *p.Message != "m" || len(p.Decisions) != 1 {
					t.Fatalf("got %+v, %v", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "checkpointPayload") {
				t.Fatalf("err = %v, want %q", err, c.wantErr)
			}
		})
	}
}

func TestParseResolution(t *testing.T) {
	for _, c := range []struct {
		in   string
		want smriti.MergeResolution
		ok   bool
	}{
		{"summary=theirs", smriti.MergeResolution{Field: "summary", Choice: "theirs"}, true},
		{"tasks:write the docs=base", smriti.MergeResolution{Field: "tasks", Key: "write the docs", Choice: "base"}, true},
		{"tasks:a=b=ours", smriti.MergeResolution{Field: "tasks", Key: "a=b", Choice: "ours"}, true},
		{"summary=mine", smriti.MergeResolution{}, false},
		{"=ours", smriti.MergeResolution{}, false},
		{"summary", smriti.MergeResolution{}, false},
	} {
		got, err := parseResolution(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("parseResolution(%q) = %+v, %v; want %+v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestReportExitCodesAndHints(t *testing.T) {
	for _, c := range []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"Nil", nil, ExitOK, ""},
		{"Usage", &usageError{msg: "missing argument <space>", path: "smriti state"}, ExitUsage, "Run 'smriti state --help' for usage."},
		{"UnknownCommand", errors.New(`unknown command "x" for "smriti"`), ExitUsage, `error: unknown command "x"`},
		{"Unreachable", smriti.Errorf(smriti.EUNAVAILABLE, "cannot reach the Smriti server at http://x"), ExitError, "smriti serve"},
		{"Hinted", &hinted{err: smriti.Errorf(smriti.ENOTFOUND, "no space found matching \"x\""), hint: spaceListHint}, ExitError, "smriti space list"},
		{"Unauthorized", smriti.Errorf(smriti.EUNAUTHORIZED, "bad token"), ExitError, "SMRITI_TOKEN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if got := Report(&b, c.err); got != c.code {
				t.Fatalf("code = %d, want %d", got, c.code)
			}
			if !strings.Contains(b.String(), c.stderr) {
				t.Fatalf("stderr = %q, want it to contain %q", b.String(), c.stderr)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"demo":            "demo",
		"/usr/bin/smriti": "/usr/bin/smriti",
		"my space":        "'my space'",
		"it's":            `'it'\''s'`,
		"":                "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
