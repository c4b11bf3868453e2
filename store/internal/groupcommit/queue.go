// Package groupcommit runs concurrent callers' writes in batches: whoever
// finds no batch running leads; it takes everything queued so far, runs it
// as one batch, and hands the lead to the first caller queued meanwhile. A
// lone caller runs at once, so nothing waits for a batch to fill unless
// the queue is told to (Wait); under load one commit serves many callers.
package groupcommit

import (
	"sync"
	"time"
)

// Queue batches the values of concurrent Do calls. Set Max (and Wait)
// before the first Do; the zero Wait never waits.
type Queue[T any] struct {
	// Max bounds the values in one batch.
	Max int
	// Wait, when positive, bounds how long a leader waits for its batch to
	// fill to the size of the previous batch, when that one held more than
	// one value: callers answered together tend to come back together.
	Wait time.Duration

	mu    sync.Mutex
	queue []*entry[T]
	busy  bool
	// last is the size of the previous batch; want and filled let a leader
	// wait for as many values again.
	last   int
	want   int
	filled chan struct{}
}

type entry[T any] struct {
	v T
	// done is buffered: the lead (true), then the batch's end (false).
	done chan bool
}

// Do queues v and returns once a batch holding v has run: run, called by
// this caller or another, gets the batch in queue order and leaves each
// value's result in the value itself.
func (q *Queue[T]) Do(v T, run func(batch []T)) {
	p := &entry[T]{v: v, done: make(chan bool, 1)}
	q.mu.Lock()
	q.queue = append(q.queue, p)
	lead := !q.busy
	q.busy = true
	if q.filled != nil && len(q.queue) >= q.want {
		close(q.filled)
		q.filled = nil
	}
	q.mu.Unlock()
	if !lead {
		if lead = <-p.done; !lead {
			return
		}
	}
	q.mu.Lock()
	if want := min(q.last, q.Max); q.Wait > 0 && want > 1 && len(q.queue) < want {
		filled := make(chan struct{})
		q.want, q.filled = want, filled
		q.mu.Unlock()
		wait := time.NewTimer(q.Wait)
		select {
		case <-filled:
		case <-wait.C:
		}
		wait.Stop()
		q.mu.Lock()
		q.filled = nil
	}
	batch := q.queue[:min(len(q.queue), q.Max)]
	q.queue = append([]*entry[T](nil), q.queue[len(batch):]...)
	q.last = len(batch)
	q.mu.Unlock()
	vs := make([]T, len(batch))
	for i, e := range batch {
		vs[i] = e.v
	}
	run(vs)
	for _, e := range batch {
		e.done <- false
	}
	q.mu.Lock()
	if len(q.queue) > 0 {
		q.queue[0].done <- true
	} else {
		q.busy = false
	}
	q.mu.Unlock()
	<-p.done
}
