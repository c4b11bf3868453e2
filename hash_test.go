package smriti

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
)

// hashCheckpoints are checkpoints whose hash documents exercise every
// member and every escape: HTML characters, line separators, control
// characters, invalid UTF-8, nil and set pointers, numbers past 2^53 in
// the maps, versions 1 and 2.
func hashCheckpoints() []*Checkpoint {
	agent, root, raw := "agent <a&b>", "/srv/\u2028x", "raw\x00text\xff"
	ts := time.Date(2026, 12, 3, 7, 30, 1, 123456789, time.FixedZone("x", 3600))
	full := &Checkpoint{
		ID: NewID(), SpaceID: uuid.MustParse("8f1c0c52-1d8e-4f65-9d1a-1f5b8b9a2c3d"), BranchName: "main", CreatedAt: ts,
		AuthorAgent: &agent, AuthorType: AuthorUser, ProjectRoot: &root, RawSourceText: &raw,
		Content: Content{Message: "m \"q\" \\ \t\n", Objective: "o \u2029", Summary: "s <b>",
			Decisions: []string{"Use Go", "bad \xc3\x28 utf8", "\ufffd kept", ""}, Assumptions: []string{"a"},
			Tasks:         []Task{{Text: "t", ID: "t1", IntentHint: "h", BlockedBy: Blockers{"x", "y"}, Status: "done", Structured: true}, {Text: "plain"}},
			OpenQuestions: []string{"q?"}, Entities: []string{"e & f"},
			Artifacts: []Artifact{{ID: "a1", Label: "L"}}},
		ContextBlob: map[string]any{"z": 1, "a": []any{1.5, "x", nil, true}, "big": int64(1) << 60, "n": map[string]any{"k": "<v>"}},
		Metadata:    map[string]any{"session_id": "s", "source_turns": map[string]any{"from_seq": int64(3), "to_seq": int64(9)}, "f": 1e21, "g": 1e-7},
		HashVersion: 2,
		Items: []Item{{ID: "d-000001", Kind: KindDecision, Text: "Use Go", Status: ItemOpen}, {ID: "d-000002", Kind: KindDecision, Text: "x\xff", Status: ""},
			{ID: "t-000003", Kind: KindTask, Text: "t", Status: ItemDone}},
	}
	v1 := *full
	v1.HashVersion = 1
	empty := &Checkpoint{SpaceID: NewID(), CreatedAt: ts}
	emptyV2 := &Checkpoint{SpaceID: NewID(), CreatedAt: ts, HashVersion: 2}
	v3 := *full
	v3.HashVersion = 3
	purged := v3
	purged.Purged = []PurgedField{{Field: "decisions[1]", Digest: TextDigest("gone")}, {Field: "metadata.source_turns.to_seq", Digest: "x"},
		{Field: "context_blob.n.k", Digest: TextDigest("old")}, {Field: "items[d-000002]", Digest: TextDigest("y")}}
	emptyV3 := &Checkpoint{SpaceID: NewID(), CreatedAt: ts, HashVersion: 3}
	return []*Checkpoint{full, &v1, empty, emptyV2, &v3, &purged, emptyV3}
}

func TestHashDocumentIsCanonical(t *testing.T) {
	for i, c := range hashCheckpoints() {
		for _, parents := range [][2]string{{"", ""}, {"abc", "d<e>f"}} {
			want := canonicalJSON(c.hashDoc(parents[0], parents[1]))
			if got := c.hashDocument(parents[0], parents[1]); !bytes.Equal(got, want) {
				t.Fatalf("checkpoint %d: hash document\n%s\nwant the canonical encoding\n%s", i, got, want)
			}
		}
	}
}

func FuzzHashDocument(f *testing.F) {
	f.Add("Use Go", "<a&b>", "\u2028")
	f.Add("bad \xc3\x28", "\xff\xfe", "\x00")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		cp := &Checkpoint{SpaceID: NewID(), BranchName: a, CreatedAt: time.Unix(0, 0), AuthorAgent: &b, HashVersion: 2 + len(a)%2,
			Content:  Content{Message: c, Decisions: []string{a, b, c}},
			Metadata: map[string]any{a: b},
			Items:    []Item{{ID: a, Kind: KindDecision, Text: b, Status: c}}}
		want := canonicalJSON(cp.hashDoc(a, b))
		if got := cp.hashDocument(a, b); !bytes.Equal(got, want) {
			t.Fatalf("hash document\n%q\nwant\n%q", got, want)
		}
	})
}

func BenchmarkComputeHash(b *testing.B) {
	c := hashCheckpoints()[0]
	for i := 0; i < 500; i++ {
		c.Items = append(c.Items, Item{ID: "d-abcdef", Kind: KindDecision, Text: "Decision about the storage layer and its limits", Status: ItemOpen})
		c.Decisions = append(c.Decisions, "Decision about the storage layer and its limits")
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.ComputeHash("p", "")
	}
}

// A purge replaces a text and keeps its digest: a version 3 checkpoint's
// hash is unchanged by it, whichever field held the value, and changed by
// an edit that keeps no digest.
func TestPurgeKeepsVersion3Hash(t *testing.T) {
	base := hashCheckpoints()[4]
	want := base.ComputeHash("p", "m")
	for _, f := range base.HashedTexts() {
		t.Run(f.Field, func(t *testing.T) {
			c := *base
			c.Content = Content{Message: c.Message, Objective: c.Objective, Summary: c.Summary,
				Decisions: append([]string(nil), c.Decisions...), Assumptions: append([]string(nil), c.Assumptions...),
				OpenQuestions: append([]string(nil), c.OpenQuestions...), Entities: append([]string(nil), c.Entities...),
				Tasks: append([]Task(nil), c.Tasks...), Artifacts: append([]Artifact(nil), c.Artifacts...)}
			c.Items = append([]Item(nil), c.Items...)
			c.ContextBlob = genericJSON(c.ContextBlob).(map[string]any)
			c.Metadata = genericJSON(c.Metadata).(map[string]any)
			if !setHashedText(&c, f.Field, "[redacted: x]") {
				t.Skipf("the test does not edit %s", f.Field)
			}
			if got := c.ComputeHash("p", "m"); got == want {
				t.Fatalf("editing %s kept the hash", f.Field)
			}
			c.Purged = []PurgedField{{Field: f.Field, Digest: TextDigest(f.Text)}}
			if got := c.ComputeHash("p", "m"); got != want {
				t.Fatalf("purging %s changed the hash", f.Field)
			}
		})
	}
}

// setHashedText sets the text named field (as HashedTexts names it).
func setHashedText(c *Checkpoint, field, to string) bool {
	set := false
	f := func(p, s string) string {
		if p == field {
			set = true
			return to
		}
		return s
	}
	switch field {
	case "message":
		c.Message, set = to, true
	case "objective":
		c.Objective, set = to, true
	case "summary":
		c.Summary, set = to, true
	case "raw_source_text":
		c.RawSourceText, set = &to, true
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"decisions", c.Decisions}, {"assumptions", c.Assumptions}, {"open_questions", c.OpenQuestions}, {"entities", c.Entities}} {
		for i := range l.list {
			l.list[i] = f(listPath(l.name, i), l.list[i])
		}
	}
	for i := range c.Items {
		c.Items[i].Text = f(itemPath(c.Items[i].ID), c.Items[i].Text)
	}
	c.ContextBlob = digestTree("context_blob", c.ContextBlob, f).(map[string]any)
	c.Metadata = digestTree("metadata", c.Metadata, f).(map[string]any)
	for i := range c.Tasks {
		c.Tasks[i].Text = f(listPath("tasks", i)+".text", f(listPath("tasks", i), c.Tasks[i].Text))
		c.Tasks[i].IntentHint = f(listPath("tasks", i)+".intent_hint", c.Tasks[i].IntentHint)
	}
	for i := range c.Artifacts {
		c.Artifacts[i].Label = f(listPath("artifacts", i)+".label", c.Artifacts[i].Label)
		c.Artifacts[i].ID = f(listPath("artifacts", i)+".id", c.Artifacts[i].ID)
		c.Artifacts[i].Content = f(listPath("artifacts", i)+".content", c.Artifacts[i].Content)
	}
	return set
}
