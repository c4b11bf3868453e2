package groupcommit

import (
	"runtime"
	"slices"
	"sync"
	"testing"
)

type job struct {
	n      int
	result int
}

// queued is how many values wait in q.
func queued[T any](q *Queue[T]) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// A lone caller runs at once; callers arriving while a batch runs wait and
// run together in the next one, in queue order, at most Max at a time,
// each with its own result.
func TestQueueBatchesWhileOneRuns(t *testing.T) {
	q := &Queue[*job]{Max: 3}
	var batches [][]int
	release := make(chan struct{})
	run := func(batch []*job) {
		var ns []int
		for _, j := range batch {
			j.result = j.n * 10
			ns = append(ns, j.n)
		}
		batches = append(batches, ns)
		if len(batches) == 1 {
			<-release
		}
	}
	first := &job{n: 0}
	var wg sync.WaitGroup
	wg.Go(func() { q.Do(first, run) })
	// The first batch is running once the queue is empty again and busy.
	for {
		q.mu.Lock()
		running := q.busy && len(q.queue) == 0
		q.mu.Unlock()
		if running {
			break
		}
		runtime.Gosched()
	}
	jobs := []*job{{n: 1}, {n: 2}, {n: 3}, {n: 4}}
	for i, j := range jobs {
		wg.Go(func() { q.Do(j, run) })
		for queued(q) != i+1 {
			runtime.Gosched()
		}
	}
	close(release)
	wg.Wait()
	want := [][]int{{0}, {1, 2, 3}, {4}}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	for _, j := range append(jobs, first) {
		if j.result != j.n*10 {
			t.Errorf("job %d: result %d", j.n, j.result)
		}
	}
	if q.busy || len(q.queue) != 0 {
		t.Fatalf("queue left busy=%v with %d waiting", q.busy, len(q.queue))
	}
}

// Many concurrent callers each run exactly once.
func TestQueueRunsEveryValueOnce(t *testing.T) {
	q := &Queue[*job]{Max: 8}
	var mu sync.Mutex
	seen := map[int]int{}
	run := func(batch []*job) {
		if len(batch) == 0 || len(batch) > 8 {
			t.Errorf("batch of %d", len(batch))
		}
		mu.Lock()
		defer mu.Unlock()
		for _, j := range batch {
			seen[j.n]++
			j.result = j.n + 1
		}
	}
	jobs := make([]*job, 200)
	var wg sync.WaitGroup
	for i := range jobs {
		jobs[i] = &job{n: i}
		wg.Go(func() { q.Do(jobs[i], run) })
	}
	wg.Wait()
	for _, j := range jobs {
		if seen[j.n] != 1 || j.result != j.n+1 {
			t.Errorf("job %d ran %d times, result %d", j.n, seen[j.n], j.result)
		}
	}
}
