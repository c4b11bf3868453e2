package store

import (
	"io"
	"sync"

	"smriti/records"
)

// readAhead is a records.Reader that decodes and checks the records on its
// own goroutine, up to n ahead of the one the import is writing and, for a
// reader that knows its records' sizes, up to a budget of their bytes
// (one record larger than the budget is still read, alone): reading a
// bundle (gzip, JSON, each checkpoint's hash) and writing its rows then
// share the machine's cores instead of taking turns, and a bundle of large
// records does not fill memory with decoded ones.
type readAhead struct {
	next chan readResult
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	room *sync.Cond
	// held is the bytes of the records read and not yet taken.
	held    int
	budget  int
	stopped bool
}

type readResult struct {
	rec  *records.BundleRecord
	err  error
	size int
}

func newReadAhead(r records.Reader, n, budget int) *readAhead {
	ra := &readAhead{next: make(chan readResult, n), stop: make(chan struct{}), done: make(chan struct{}), budget: budget}
	ra.room = sync.NewCond(&ra.mu)
	sized, _ := r.(records.SizedReader)
	go func() {
		defer close(ra.done)
		for {
			rec, err := r.Next()
			size := 0
			if sized != nil && err == nil {
				size = sized.LastSize()
			}
			if !ra.reserve(size) {
				return
			}
			select {
			case ra.next <- readResult{rec, err, size}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// reserve waits until size bytes fit in the budget beside those held (or
// nothing is held) and counts them held; false once the reading stops.
func (ra *readAhead) reserve(size int) bool {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	for !ra.stopped && ra.held > 0 && ra.held+size > ra.budget {
		ra.room.Wait()
	}
	ra.held += size
	return !ra.stopped
}

func (ra *readAhead) release(size int) {
	if size == 0 {
		return
	}
	ra.mu.Lock()
	ra.held -= size
	ra.mu.Unlock()
	ra.room.Signal()
}

// Next returns the next record, or the reader's error (io.EOF at the end).
func (ra *readAhead) Next() (*records.BundleRecord, error) {
	select {
	case res := <-ra.next:
		ra.release(res.size)
		return res.rec, res.err
	case <-ra.done:
		// the goroutine ended after its last send, which is received
		select {
		case res := <-ra.next:
			return res.rec, res.err
		default:
			return nil, io.EOF
		}
	}
}

// close stops the reading and waits until the goroutine has let go of the
// underlying reader (which the caller may then rewind or close).
func (ra *readAhead) close() {
	ra.mu.Lock()
	ra.stopped = true
	ra.mu.Unlock()
	ra.room.Broadcast()
	close(ra.stop)
	<-ra.done
}
