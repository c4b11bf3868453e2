package wire

import (
	"time"

	"smriti/coord"
	"smriti/internal/nonnil"
	"smriti/internal/textutil"
)

// probeOut fills the relative time of the last commit as of now (the cache
// keeps the absolute time, so a cached probe never reads stale).
func ProbeOut(p *coord.WorktreeProbe, now time.Time) *coord.WorktreeProbe {
	if p == nil {
		return nil
	}
	q := *p
	q.DirtyPaths = nonnil.Slice(q.DirtyPaths)
	if !q.LastCommitAt.IsZero() {
		q.LastCommitRelative = textutil.RelativeTime(q.LastCommitAt, now)
	}
	return &q
}
