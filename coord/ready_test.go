package coord

import (
	"strings"
	"testing"

	"smriti"
)

func TestRankReadyWaitsForEveryBlocker(t *testing.T) {
	tk := func(id, status string, bs ...string) smriti.Task {
		return smriti.Task{ID: id, Text: "do " + id, Status: status, BlockedBy: bs, Structured: true}
	}
	keys := func(rs []ReadyTask) string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, r.Key)
		}
		return strings.Join(ks, ",")
	}
	tests := []struct {
		name  string
		tasks []smriti.Task
		want  string
	}{
		{"BothOpen", []smriti.Task{tk("t-1", ""), tk("t-2", ""), tk("t-3", "", "t-1", "t-2")}, "t-1,t-2"},
		{"OneDone", []smriti.Task{tk("t-1", "done"), tk("t-2", ""), tk("t-3", "", "t-1", "t-2")}, "t-2"},
		{"BothDone", []smriti.Task{tk("t-1", "done"), tk("t-2", "done"), tk("t-3", "", "t-1", "t-2")}, "t-3"},
		{"StringFormStillWorks", []smriti.Task{tk("t-1", ""), tk("t-3", "", "t-1")}, "t-1"},
		{"OldCommaStringSplits", []smriti.Task{tk("t-1", "done"), tk("t-2", ""), tk("t-3", "", "t-1, t-2")}, "t-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keys(RankReady([]TaskSource{{Branch: "main", Tasks: tt.tasks}}, nil, nil))
			if got != tt.want {
				t.Fatalf("ready = %q, want %q", got, tt.want)
			}
		})
	}
}
