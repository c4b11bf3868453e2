package dbx

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// stringsAsDecoded is what encoding/json makes of s as a []string.
func stringsAsDecoded(s string) ([]string, error) {
	var out []string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

func TestColsStringsReadsAsTheDecoderDoes(t *testing.T) {
	for _, s := range []string{
		`[]`, ` [ ] `, `["a"]`, `["a","b"]`, `["a", "b"]`, "[\n\"a\",\n\t\"b\"\n]", `["", ""]`,
		`["caf\u00e9 — ok"]`, `["quote \" inside"]`, `["tab\there"]`, `["back\\slash"]`, `["line\nbreak"]`,
		"[\"raw \xff byte\"]", `null`, `["a",]`, `["a" "b"]`, `["a"] x`, `[1]`, `["a"`, `[`, `{}`, `["a\"]`,
		"[\"control \x01\"]", `["ünïcode ✓", "日本語"]`,
	} {
		want, werr := stringsAsDecoded(s)
		var c Cols
		got := c.Strings(s)
		if (werr != nil) != (c.Err() != nil) {
			t.Errorf("%q: error %v; the decoder's %v", s, c.Err(), werr)
			continue
		}
		if werr == nil && (!slices.Equal(got, want) || (got == nil) != (want == nil)) {
			t.Errorf("%q: %#v; the decoder reads %#v", s, got, want)
		}
	}
	var c Cols
	if got := c.Strings(nil); got != nil || c.Err() != nil {
		t.Errorf("NULL: %#v, %v; want nil", got, c.Err())
	}
}

func FuzzColsStrings(f *testing.F) {
	for _, s := range []string{`[]`, `["a","b"]`, `["a", "b"]`, `["\u00e9"]`, `["x\"y"]`, "[\"\xff\"]", `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainStrings(s)
		if !ok {
			return
		}
		want, err := stringsAsDecoded(s)
		if err != nil || !slices.Equal(got, want) || want == nil {
			t.Fatalf("%q: read as %#v; the decoder reads %#v, %v", s, got, want, err)
		}
	})
}

func TestColsConvertsDriverValues(t *testing.T) {
	var c Cols
	if got := c.Str([]byte("x")); got != "x" {
		t.Errorf("Str of bytes = %q", got)
	}
	if got := c.OptStr(nil); got != nil {
		t.Errorf("OptStr of NULL = %v", got)
	}
	if got := c.Int(int64(7)); got == nil || *got != 7 {
		t.Errorf("Int = %v", got)
	}
	id := c.ID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	if id == nil || id.String() != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" || c.Err() != nil {
		t.Errorf("ID = %v, %v", id, c.Err())
	}
	if c.Int("7"); c.Err() == nil {
		t.Error("Int of text: no error")
	}
}

func TestJSONColReadsAsTheDecoderDoes(t *testing.T) {
	type task struct {
		Text string `json:"text"`
	}
	for _, s := range []string{`[]`, `{}`, `["a","b"]`, `["a\nb"]`, `[{"text":"x"}]`, `{"k":1}`, `null`} {
		var strs, decStrs []string
		var tasks, decTasks []task
		var m, decM map[string]any
		for _, c := range []struct {
			got, want any
		}{{&strs, &decStrs}, {&tasks, &decTasks}, {&m, &decM}} {
			gerr := JSONCol{Dst: c.got}.Scan(s)
			werr := json.Unmarshal([]byte(s), c.want)
			if (gerr != nil) != (werr != nil) {
				t.Errorf("%q into %T: error %v; the decoder's %v", s, c.got, gerr, werr)
			}
			// As PostgreSQL's driver gives it, into a fresh value.
			fresh := reflect.New(reflect.TypeOf(c.got).Elem())
			if err := (JSONCol{Dst: fresh.Interface()}).Scan([]byte(s)); (err != nil) != (werr != nil) ||
				(werr == nil && !reflect.DeepEqual(fresh.Elem().Interface(), reflect.ValueOf(c.want).Elem().Interface())) {
				t.Errorf("%q as bytes into %T: %#v, %v; the decoder's %#v, %v", s, c.got, fresh.Elem().Interface(), err, c.want, werr)
			}
		}
		if !reflect.DeepEqual(strs, decStrs) || !reflect.DeepEqual(tasks, decTasks) || !reflect.DeepEqual(m, decM) {
			t.Errorf("%q: read %#v %#v %#v; the decoder reads %#v %#v %#v", s, strs, tasks, m, decStrs, decTasks, decM)
		}
	}
}
