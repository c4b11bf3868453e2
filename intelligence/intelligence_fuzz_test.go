package intelligence

import (
	"encoding/json"
	"smriti"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzExtractJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"a\": [1]}\n```", `x [y] {"b": "}"} z`, `[{"a":1}]`, `{"a": "`, "\ufeff{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		obj, err := extractJSONObject(s)
		if err != nil {
			if obj != nil {
				t.Fatal("object returned with an error")
			}
			return
		}
		if !json.Valid(obj) || obj[0] != '{' || obj[len(obj)-1] != '}' {
			t.Fatalf("not a JSON object: %q", obj)
		}
		if !strings.Contains(s, string(obj)) {
			t.Fatalf("result %q is not part of the input", obj)
		}
	})
}

func FuzzParseDraft(f *testing.F) {
	for _, s := range []string{
		`{"title":"t","decisions":["a","A."],"tasks":["x",{"text":"y","intent_hint":"Docs"}]}`,
		`{"artifacts":[{"content":"c"},{"id":"a1","content":"d"}]}`,
		`{"decisions":"one","entities":[1,true,null]}`,
		`{"tasks":[{"id":1}]}`,
		"```json\n{\"summary\": \"s\"}\n```",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, withArtifacts := range []bool{false, true} {
			d, err := ParseDraft(s, withArtifacts)
			if err != nil {
				continue
			}
			runes := utf8.RuneCountInString
			if runes(d.Title) > MaxTitleChars || runes(d.Summary) > maxSummaryChars || runes(d.Objective) > smriti.MaxItemChars {
				t.Fatalf("scalar caps broken: %+v", d)
			}
			lists := [][]string{d.Decisions, d.Assumptions, d.OpenQuestions, d.Entities, (&smriti.Content{Tasks: d.Tasks}).TaskTexts()}
			for _, l := range lists {
				if l == nil || len(l) > MaxDraftItems {
					t.Fatalf("list nil or over cap: %d", len(l))
				}
				seen := map[string]bool{}
				for _, it := range l {
					if runes(it) > smriti.MaxItemChars || strings.TrimSpace(it) == "" || seen[smriti.ItemKey(it)] {
						t.Fatalf("bad item %q", it)
					}
					seen[smriti.ItemKey(it)] = true
				}
			}
			for _, task := range d.Tasks {
				if !task.Structured || (task.IntentHint != "" && !smriti.ValidIntent(task.IntentHint)) {
					t.Fatalf("bad task %+v", task)
				}
			}
			if len(d.Artifacts) > maxArtifacts || (!withArtifacts && len(d.Artifacts) > 0) {
				t.Fatalf("%d artifacts", len(d.Artifacts))
			}
			ids := map[string]bool{}
			for _, a := range d.Artifacts {
				if a.ID == "" || ids[a.ID] || a.Type == "" || runes(a.Content) > maxArtifactChars {
					t.Fatalf("bad artifact %+v", a)
				}
				ids[a.ID] = true
			}
			for _, it := range append(append([]string{}, d.Decisions...), (&smriti.Content{Tasks: d.Tasks}).TaskTexts()...) {
				if IsSuspicious(it) {
					t.Fatalf("instruction-like item kept: %q", it)
				}
			}
			if _, err := json.Marshal(d); err != nil {
				t.Fatal(err)
			}
		}
	})
}
