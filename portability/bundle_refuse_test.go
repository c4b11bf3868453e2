package portability_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"smriti"
	"smriti/portability"
	"strings"
	"testing"
)

func TestBundleReaderRefuses(t *testing.T) {
	gz := func(lines ...string) []byte {
		var out bytes.Buffer
		if err := gzipLines(&out, lines); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	header := `{"type":"header","header":{"format":"smriti-space-bundle","version":1}}`
	space := `{"type":"space","space":{"id":"6d1f2c1e-0000-4000-8000-000000000001","name":"S","description":"","metadata":{},"created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z"}}`
	cases := []struct {
		name string
		data []byte
		code string
		msg  string
	}{
		{"NotGzip", []byte(`{"type":"header"}`), smriti.EINVALID, "not gzip-compressed"},
		{"UnknownVersion", gz(`{"type":"header","header":{"format":"smriti-space-bundle","version":2}}`), smriti.EUNPROCESSABLE, "unsupported bundle version 2"},
		{"OtherFormat", gz(`{"type":"header","header":{"format":"zip","version":1}}`), smriti.EUNPROCESSABLE, "not a space bundle"},
		{"NoEndRecord", gz(header, space), smriti.EINVALID, "truncated"},
		{"WrongCounts", gz(header, space, `{"type":"end","end":{"checkpoints":1,"notes":0,"sessions":0,"turns":0}}`), smriti.EUNPROCESSABLE, "declares"},
		{"UnknownParent", gz(header, space, `{"type":"checkpoint","checkpoint":{"id":"6d1f2c1e-0000-4000-8000-000000000002","commit_hash":"x","parent_id":"6d1f2c1e-0000-4000-8000-000000000009","branch_name":"main","author_type":"user","message":"m","created_at":"2024-01-01T00:00:00Z"}}`),
			smriti.EUNPROCESSABLE, "not an earlier checkpoint of this bundle"},
		{"TurnWithoutSession", gz(header, space, `{"type":"turn","turn":{"id":"6d1f2c1e-0000-4000-8000-000000000003","session_id":"6d1f2c1e-0000-4000-8000-000000000004","sequence_number":0,"role":"user","content":"x","created_at":"2024-01-01T00:00:00Z"}}`),
			smriti.EUNPROCESSABLE, "must follow its session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := portability.VerifyBundle(bytes.NewReader(c.data))
			if smriti.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v (%s), want %s containing %q", err, smriti.ErrorCode(err), c.code, c.msg)
			}
		})
	}
	t.Run("TruncatedGzip", func(t *testing.T) {
		data := gz(header, space, `{"type":"end","end":{"checkpoints":0,"notes":0,"sessions":0,"turns":0}}`)
		if _, _, err := portability.VerifyBundle(bytes.NewReader(data)); err != nil {
			t.Fatalf("whole bundle: %v", err)
		}
		_, _, err := portability.VerifyBundle(bytes.NewReader(data[:len(data)-10]))
		if smriti.ErrorCode(err) != smriti.EINVALID {
			t.Fatalf("err = %v (%s), want invalid", err, smriti.ErrorCode(err))
		}
	})
}

func gzipLines(w io.Writer, lines []string) error {
	zw := gzip.NewWriter(w)
	if _, err := io.WriteString(zw, strings.Join(lines, "\n")+"\n"); err != nil {
		return err
	}
	return zw.Close()
}
