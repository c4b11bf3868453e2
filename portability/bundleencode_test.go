package portability

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"smriti"
	"smriti/records"
)

// awkward are strings that take every branch of JSON string escaping.
var awkward = []string{
	"plain words",
	"quote \" backslash \\ newline \n tab \t return \r backspace \b feed \f",
	"controls \x00 \x01 \x1f and delete \x7f",
	"html <b>&amp;</b> stays as it is",
	"unicode é — ✓ 日本語 𝄞",
	"not utf-8: \xff \xfe \xc3 end",
	"separators \u2028 and \u2029",
	"",
}

// filler fills every field of a value with something other than its zero,
// drawing strings from awkward in turn, so that a field an encoder forgets
// or misplaces shows.
type filler struct{ n int }

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, f.n*1000+7, time.UTC)))
		return
	case reflect.TypeFor[smriti.ID]():
		id := smriti.NewID()
		v.Set(reflect.ValueOf(id))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`{"k":1}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkward[f.n%len(awkward)] + " #" + string(rune('a'+f.n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(f.n * 37))
	case reflect.Float64:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k)
			if e.Kind() == reflect.Interface {
				e.Set(reflect.ValueOf(awkward[(f.n+i)%len(awkward)]))
			} else {
				f.fill(e)
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i))
		}
	}
}

// encodingJSON is the line encoding/json writes for rec in a bundle.
func encodingJSON(t *testing.T, rec *records.BundleRecord) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(rec)
	return buf.Bytes(), err
}

func sameLine(t *testing.T, name string, rec *records.BundleRecord) {
	t.Helper()
	want, err := encodingJSON(t, rec)
	if err != nil {
		t.Fatalf("%s: encoding/json: %v", name, err)
	}
	got, ok := newLineEncoder().encode(rec)
	if !ok {
		t.Fatalf("%s: the line encoder left the record to encoding/json", name)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func TestLineEncoderWritesWhatEncodingJSONWrites(t *testing.T) {
	f := &filler{}
	for i := 0; i < len(awkward); i++ {
		var c records.BundleCheckpoint
		f.fill(reflect.ValueOf(&c).Elem())
		sameLine(t, "checkpoint, every field filled", &records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: &c})
		var tu records.BundleTurn
		f.fill(reflect.ValueOf(&tu).Elem())
		sameLine(t, "turn, every field filled", &records.BundleRecord{Type: records.RecordTurn, Turn: &tu})
	}
	// Nothing set: nil lists and maps, no optional field.
	sameLine(t, "empty checkpoint", &records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: &records.BundleCheckpoint{}})
	sameLine(t, "empty turn", &records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{}})
	// Empty but not nil, as the store writes them.
	c := records.BundleCheckpointOf(&smriti.Checkpoint{Content: smriti.Content{Decisions: []string{}, Assumptions: []string{}, Tasks: []smriti.Task{},
		OpenQuestions: []string{}, Entities: []string{}, Artifacts: []smriti.Artifact{}}, ContextBlob: map[string]any{}, Metadata: map[string]any{},
		HashVersion: smriti.CurrentHashVersion, Items: []smriti.Item{{ID: "d-1", Kind: smriti.KindDecision, Supersedes: []string{}}}})
	sameLine(t, "empty lists", &records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: c})
	sameLine(t, "empty metadata", &records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{Metadata: map[string]any{}}})
}

func TestLineEncoderLeavesOtherRecordsToEncodingJSON(t *testing.T) {
	e := newLineEncoder()
	for _, rec := range []records.BundleRecord{
		{Type: records.RecordSpace, Space: &records.BundleSpace{}},
		{Type: records.RecordSession, Session: &records.BundleSession{}},
		{Type: records.RecordEnd, End: &records.BundleCounts{}},
		{Type: records.RecordCheckpoint, Checkpoint: &records.BundleCheckpoint{}, Turn: &records.BundleTurn{}},
		{Type: records.RecordCheckpoint},
	} {
		if _, ok := e.encode(&rec); ok {
			t.Errorf("%+v: encoded by the line encoder", rec)
		}
	}
}

func TestBundleWriterRefusesATimeEncodingJSONRefuses(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewBundleWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rec := records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	_, want := encodingJSON(t, &rec)
	if err := w.Write(rec); err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("write of a year 10000 time: %v; encoding/json: %v", err, want)
	}
}

func FuzzLineEncoderString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec := &records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{Content: s, Role: s, Metadata: map[string]any{"k": s}}}
		want, err := encodingJSON(t, rec)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := newLineEncoder().encode(rec)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}
