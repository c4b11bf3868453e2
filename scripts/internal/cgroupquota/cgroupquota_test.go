package cgroupquota

import "testing"

func TestParsePercentAndProcs(t *testing.T) {
	for _, tc := range []struct {
		in      string
		percent float64
		procs   int
		bad     bool
	}{
		{in: "", percent: 0, procs: 0},
		{in: "15%", percent: 15, procs: 1},
		{in: " 15 ", percent: 15, procs: 1},
		{in: "100%", percent: 100, procs: 1},
		{in: "150%", percent: 150, procs: 2},
		{in: "0%", bad: true},
		{in: "-5", bad: true},
		{in: "lots", bad: true},
	} {
		p, err := ParsePercent(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParsePercent(%q) = %v, want an error", tc.in, p)
			}
			continue
		}
		if err != nil || p != tc.percent {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v", tc.in, p, err, tc.percent)
		}
		// Procs needs no cgroup: it is the quota's CPUs rounded up.
		if got := (&Quota{percent: p}).Procs(); got != tc.procs {
			t.Errorf("Procs at %v%% = %d, want %d", p, got, tc.procs)
		}
	}
}
