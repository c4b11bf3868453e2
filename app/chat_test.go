package app

import (
	"reflect"
	"smriti"
	"smriti/intelligence"
	"testing"
	"time"
)

func TestReplyMetaRoundTripsThroughTurnMetadata(t *testing.T) {
	from, to := int64(4), int64(9)
	cp := smriti.NewID()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		name string
		in   intelligence.ReplyMeta
		want map[string]any
	}{
		{"WithTurns", intelligence.ReplyMeta{Usage: intelligence.Usage{InputTokens: 12, OutputTokens: 3},
			Context: intelligence.ReplyContext{Mode: intelligence.ModeHead, CheckpointIDs: []smriti.ID{cp}, DroppedTurns: 2, FromSeq: &from, ToSeq: &to}, At: at},
			map[string]any{
				"usage":   map[string]any{"input_tokens": float64(12), "output_tokens": float64(3)},
				"context": map[string]any{"mode": "HEAD", "checkpoint_ids": []any{cp.String()}, "dropped_turns": float64(2), "from_seq": float64(4), "to_seq": float64(9)},
				"at":      "2026-01-02T03:04:05Z",
			}},
		{"NoTurns", intelligence.ReplyMeta{Context: intelligence.ReplyContext{Mode: intelligence.ModeFresh, CheckpointIDs: []smriti.ID{}}, At: at},
			map[string]any{
				"usage":   map[string]any{"input_tokens": float64(0), "output_tokens": float64(0)},
				"context": map[string]any{"mode": "FRESH", "checkpoint_ids": []any{}, "dropped_turns": float64(0)},
				"at":      "2026-01-02T03:04:05Z",
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Metadata()
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("metadata() = %#v\nwant %#v", got, tt.want)
			}
			back := intelligence.ReplyMetaOf(&smriti.Turn{Metadata: got})
			if !reflect.DeepEqual(back, tt.in) {
				t.Fatalf("ReplyMetaOf = %#v\nwant %#v", back, tt.in)
			}
		})
	}
}

func TestReplyMetaOfTurnWithoutOne(t *testing.T) {
	got := intelligence.ReplyMetaOf(&smriti.Turn{Metadata: map[string]any{}})
	want := intelligence.ReplyMeta{Context: intelligence.ReplyContext{CheckpointIDs: []smriti.ID{}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}
