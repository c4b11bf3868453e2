package wire

import (
	"strings"
	"testing"

	"smriti"
)

func TestCheckJSONText(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"CleanPasses", `{"name":"ok","tags":["a","b"],"n":1,"m":{"x":[{"y":"z"}]}}`, ""},
		{"NULInFieldNamed", `{"name":"ok","message":"a\u0000b"}`, "message contains a NUL character"},
		{"NULInNestedArrayNamed", `{"decisions":["fine","bad\u0000"]}`, "decisions[1] contains a NUL character"},
		{"NULInMetadataNamed", `{"metadata":{"k":{"deep":"x\u0000"}}}`, "metadata.k.deep contains a NUL character"},
		{"InvalidUTF8Named", "{\"summary\":\"caf\xe9\"}", "summary is not valid UTF-8"},
		{"InvalidUTF8KeyNamed", "{\"m\":{\"\xff\":1}}", "m.\ufffd: a key is not valid UTF-8"},
		{"EscapedBackslashIsNotNUL", `{"text":"a\\u0000b"}`, ""},
		{"TooDeepRefused", deep, "nests deeper than 40 levels"},
		{"SyntaxLeftToDecoder", `{"a":`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkJSONText([]byte(tc.body))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want 422 containing %q", err, tc.want)
			}
		})
	}
}
