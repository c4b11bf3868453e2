package portability

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
)

// maxEndLine bounds the last line ScanBundle keeps: an end record is a
// hundred bytes or so.
const maxEndLine = 4 << 10

var newline = []byte{'\n'}

// ScanBundle reads a bundle through and returns the counts its end record
// declares, without decoding the records before it: it only finds where
// each line ends, so it costs the decompression and little more. It
// returns nil when it cannot tell — the bundle is not laid out as an
// export writes it (one record a line, the end record last), it is cut
// off or corrupt, or the declared counts do not add up to its lines —
// and the caller then checks the bundle whole (VerifyBundle), which says
// what is wrong.
//
// The counts are only a promise: an import given them checks every record
// as it writes it, the end record's counts against the records it held
// among them, and refuses the whole import at the first that fails. That
// they add up to the bundle's lines bounds what the import sets aside for
// them by the bundle's own size.
func ScanBundle(r io.Reader) *BundleCounts {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil
	}
	gz.Multistream(false)
	var (
		buf      = make([]byte, 64<<10)
		lines    int
		last     []byte // the last whole line, empty when it is long
		tail     []byte // what follows the last newline so far
		longTail bool   // tail outgrew maxEndLine (and was dropped)
	)
	for {
		n, err := gz.Read(buf)
		chunk := buf[:n]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			lines += bytes.Count(chunk, newline)
			prefix, line, long := tail, chunk[:i], longTail
			if j := bytes.LastIndexByte(line, '\n'); j >= 0 {
				prefix, line, long = nil, line[j+1:], false
			}
			last = last[:0]
			if !long && len(prefix)+len(line) <= maxEndLine {
				last = append(append(last, prefix...), line...)
			}
			rest := chunk[i+1:]
			tail, longTail = tail[:0], len(rest) > maxEndLine
			if !longTail {
				tail = append(tail, rest...)
			}
		} else if longTail || len(tail)+n > maxEndLine {
			tail, longTail = tail[:0], true
		} else {
			tail = append(tail, chunk...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil
		}
	}
	if len(tail) > 0 || longTail {
		return nil
	}
	var rec BundleRecord
	if json.Unmarshal(last, &rec) != nil || rec.Type != RecordEnd || rec.End == nil {
		return nil
	}
	c := rec.End
	for _, v := range []int{c.Checkpoints, c.Notes, c.Sessions, c.Turns, c.Claims, c.Receipts, c.Proposals} {
		if v < 0 {
			return nil
		}
	}
	// header, space, end and one line a record of the rest
	if lines != 3+c.Checkpoints+c.Sessions+c.Turns+c.Claims+c.Receipts+c.Proposals {
		return nil
	}
	return c
}
