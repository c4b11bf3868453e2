package store

import "testing"

func TestSkipHeightPointsBelowAndSpreads(t *testing.T) {
	for d := int64(0); d < 5000; d++ {
		h := skipHeight(d)
		if d >= 2 && (h >= d || h < 0) {
			t.Fatalf("skipHeight(%d) = %d, want in [0, %d)", d, h, d)
		}
	}
	for d, want := range map[int64]int64{0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 6: 4, 8: 0, 12: 8, 5000: 4992, 4999: 4993} {
		if got := skipHeight(d); got != want {
			t.Errorf("skipHeight(%d) = %d, want %d", d, got, want)
		}
	}
}
