package coord

import (
	"context"
	"smriti"
	"sort"
	"strings"
	"time"
)

// TaskSource is one branch head whose open tasks may be ready.
type TaskSource struct {
	Branch       string
	CheckpointID smriti.ID
	Hash         string
	CreatedAt    time.Time
	Tasks        []smriti.Task
}

// ReadyTask is an open task nothing blocks and no live claim holds.
type ReadyTask struct {
	// Key is what `claim create --task` takes: the task's id, or for a task
	// without one "h-" and the first 8 hex digits of the hash of its text.
	Key          string
	Task         smriti.Task
	Branch       string
	CheckpointID smriti.ID
	Hash         string
	// Unblocks counts the open tasks that name this one in blocked_by.
	Unblocks int
	// Since is when the checkpoint holding the task was written.
	Since time.Time
}

// ReadyQuery selects ready tasks.
type ReadyQuery struct {
	// Limit bounds the list (smriti.ListCap when 0 or larger).
	Limit int
}

// ReadyService lists the ready queue and claims from it.
type ReadyService interface {
	// ReadyTasks returns the space's ready tasks, ranked (RankReady).
	// ENOTFOUND for an unknown space.
	ReadyTasks(ctx context.Context, spaceID smriti.ID, q ReadyQuery) ([]ReadyTask, error)
	// ClaimReady claims the first ready task no one else wins first: in.Scope
	// and in.TaskID are filled from the task. ENOTFOUND when nothing is ready.
	ClaimReady(ctx context.Context, in ClaimCreate) (*Claim, *ReadyTask, error)
	// HeartbeatClaim renews a live claim's lease to ttl from now (nil: its
	// original length). ENOTFOUND for an unknown claim; ECONFLICT for one
	// finished or expired.
	HeartbeatClaim(ctx context.Context, id smriti.ID, ttl *time.Duration) (*Claim, error)
}

// taskBlockers turns a blocked_by annotation into task keys: each listed id,
// and within one (as older checkpoints wrote several in a string) ids
// separated by commas, semicolons or white space.
func taskBlockers(bs smriti.Blockers) []string {
	var out []string
	for _, s := range bs {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	return out
}

// RankReady picks the ready tasks from the heads (main first, then the
// active branches; a task is kept at its first appearance by key): open,
// not done by a finished claim, not held by a live claim, and every task
// its blocked_by names is done (a blocker no head holds any more counts as
// done). They are ranked by how many open tasks each unblocks (most first),
// then oldest checkpoint first, then their order in it.
func RankReady(heads []TaskSource, held, claimedDone map[string]bool) []ReadyTask {
	type cand struct {
		ReadyTask
		order int
	}
	status := map[string]string{}
	var all []cand
	for _, h := range heads {
		for _, t := range h.Tasks {
			k := t.Key()
			if _, dup := status[k]; dup {
				if t.Status == smriti.TaskDone {
					status[k] = smriti.TaskDone
				}
				continue
			}
			st := t.Status
			if st == "" {
				st = smriti.TaskOpen
			}
			if claimedDone[k] {
				st = smriti.TaskDone
			}
			status[k] = st
			all = append(all, cand{ReadyTask{Key: k, Task: t, Branch: h.Branch, CheckpointID: h.CheckpointID, Hash: h.Hash, Since: h.CreatedAt}, len(all)})
		}
	}
	unblocks := map[string]int{}
	var out []cand
	for _, c := range all {
		if status[c.Key] != smriti.TaskOpen {
			continue
		}
		blocked := false
		for _, b := range taskBlockers(c.Task.BlockedBy) {
			if b == c.Key {
				continue
			}
			unblocks[b]++
			if st, ok := status[b]; ok && st != smriti.TaskDone {
				blocked = true
			}
		}
		if !blocked && !held[c.Key] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ua, ub := unblocks[a.Key], unblocks[b.Key]; ua != ub {
			return ua > ub
		}
		if !a.Since.Equal(b.Since) {
			return a.Since.Before(b.Since)
		}
		return a.order < b.order
	})
	res := make([]ReadyTask, len(out))
	for i, c := range out {
		c.Unblocks = unblocks[c.Key]
		res[i] = c.ReadyTask
	}
	return res
}
