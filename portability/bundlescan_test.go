package portability_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"smriti"
	"smriti/portability"
)

// TestScanBundleCountsWhatTheEndRecordDeclares: a bundle laid out as an
// export writes it gives the end record's counts; any other layout, or
// counts that do not add up to the lines, gives nil (the caller then
// checks the bundle whole), and so do data that is not a whole bundle.
func TestScanBundleCountsWhatTheEndRecordDeclares(t *testing.T) {
	header := `{"type":"header","header":{"format":"smriti-space-bundle","version":1}}`
	space := `{"type":"space","space":{"id":"6d1f2c1e-0000-4000-8000-000000000001","name":"S"}}`
	rec := `{"type":"turn","turn":{}}`
	end := `{"type":"end","end":{"checkpoints":1,"notes":4,"sessions":0,"turns":2}}`
	gz := func(text string) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		if _, err := io.WriteString(zw, text); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	lines := func(ls ...string) []byte { return gz(strings.Join(ls, "\n") + "\n") }
	whole := lines(header, space, rec, rec, rec, end)
	long := strings.Repeat("x", 100<<10)
	cases := []struct {
		name string
		data []byte
		want *portability.BundleCounts
	}{
		{"AsExported", whole, &portability.BundleCounts{Checkpoints: 1, Notes: 4, Turns: 2}},
		{"LongRecordsBeforeTheEnd", lines(header, space, `{"x":"`+long+`"}`, rec, `{"y":"`+long+`"}`, end), &portability.BundleCounts{Checkpoints: 1, Notes: 4, Turns: 2}},
		{"NoEndRecord", lines(header, space, rec, rec, rec), nil},
		{"EndNotLast", lines(header, space, rec, rec, end, rec), nil},
		{"LongLastLine", lines(header, space, rec, rec, rec, `{"x":"`+long+`"}`), nil},
		{"CountsAboveTheLines", lines(header, space, rec, rec, end), nil},
		{"CountsBelowTheLines", lines(header, space, rec, rec, rec, rec, end), nil},
		{"NegativeCount", lines(header, space, rec, rec, rec, rec, rec, `{"type":"end","end":{"checkpoints":5,"turns":-1,"sessions":1}}`), nil},
		{"BlankLine", lines(header, space, rec, "", rec, rec, end), nil},
		{"NoNewlineAtTheEnd", gz(strings.Join([]string{header, space, rec, rec, rec, end}, "\n")), nil},
		{"NotGzip", []byte(header + "\n"), nil},
		{"CutGzip", whole[:len(whole)-10], nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := portability.ScanBundle(bytes.NewReader(c.data))
			if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
				t.Fatalf("ScanBundle = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestImportSpaceRefusesWhatTheScanCannotTell: a bundle the scan gives up
// on is checked whole before anything is written, and refused naming what
// is wrong.
func TestImportSpaceRefusesWhatTheScanCannotTell(t *testing.T) {
	header := `{"type":"header","header":{"format":"smriti-space-bundle","version":1}}`
	space := `{"type":"space","space":{"id":"6d1f2c1e-0000-4000-8000-000000000001","name":"S","description":"","metadata":{},"created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z"}}`
	var out bytes.Buffer
	if err := gzipLines(&out, []string{header, space, `{"type":"end","end":{"checkpoints":1,"notes":0,"sessions":0,"turns":0}}`}); err != nil {
		t.Fatal(err)
	}
	_, err := portability.ImportSpace(t.Context(), nil, bytes.NewReader(out.Bytes()), false)
	if smriti.ErrorCode(err) != smriti.EUNPROCESSABLE || !strings.Contains(err.Error(), "declares") {
		t.Fatalf("err = %v, want EUNPROCESSABLE saying what the bundle declares", err)
	}
}

// TestBundleRecordsKeepEncodingJSONMeaning: the bundle reader decodes as
// encoding/json does — names matched without regard to case, invalid
// UTF-8 replaced — and names the field of the wrong type.
func TestBundleRecordsKeepEncodingJSONMeaning(t *testing.T) {
	header := `{"type":"header","header":{"format":"smriti-space-bundle","version":1}}`
	end := `{"type":"end","end":{"checkpoints":0,"notes":0,"sessions":0,"turns":0}}`
	bundle := func(space string) []byte {
		var out bytes.Buffer
		if err := gzipLines(&out, []string{header, space, end}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	sp, _, err := portability.VerifyBundle(bytes.NewReader(bundle(
		`{"Type":"space","SPACE":{"id":"6d1f2c1e-0000-4000-8000-000000000001","Name":"S` + "\xff" + `","created_at":"2024-01-01T00:00:00Z"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if sp.Name != "S\uFFFD" {
		t.Fatalf("space name %q, want %q", sp.Name, "S\uFFFD")
	}
	_, _, err = portability.VerifyBundle(bytes.NewReader(bundle(`{"type":"space","space":{"id":"6d1f2c1e-0000-4000-8000-000000000001","name":7}}`)))
	if smriti.ErrorCode(err) != smriti.EINVALID || !strings.Contains(err.Error(), "record 2 of the bundle is not valid: space.name should be string, not number") {
		t.Fatalf("err = %v, want EINVALID naming space.name", err)
	}
}
