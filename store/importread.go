package store

import (
	"io"

	"smriti/records"
)

// readAhead is a records.Reader that decodes and checks the records on its
// own goroutine, up to n ahead of the one the import is writing: reading a
// bundle (gzip, JSON, each checkpoint's hash) and writing its rows then
// share the machine's cores instead of taking turns.
type readAhead struct {
	next chan readResult
	stop chan struct{}
	done chan struct{}
}

type readResult struct {
	rec *records.BundleRecord
	err error
}

func newReadAhead(r records.Reader, n int) *readAhead {
	ra := &readAhead{next: make(chan readResult, n), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ra.done)
		for {
			rec, err := r.Next()
			select {
			case ra.next <- readResult{rec, err}:
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

// Next returns the next record, or the reader's error (io.EOF at the end).
func (ra *readAhead) Next() (*records.BundleRecord, error) {
	select {
	case res := <-ra.next:
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
	close(ra.stop)
	<-ra.done
}
