package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// parseErrorLine is the JSON-RPC answer to a line that is not JSON.
const parseErrorLine = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n"

// lockedWriter serialises whole writes: the transport writes each message
// with one Write, and so does the parse-error answer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// jsonLines passes the JSON lines of in to the returned reader and answers
// every other non-blank line on out with a JSON-RPC parse error (-32700),
// so that one bad line does not end the session.
func jsonLines(in io.Reader, out io.Writer) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if json.Valid(t) {
					if _, werr := pw.Write(append(t, '\n')); werr != nil {
						return
					}
				} else {
					out.Write([]byte(parseErrorLine))
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}
