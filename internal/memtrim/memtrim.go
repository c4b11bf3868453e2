// Package memtrim hands memory back to the kernel: the pages of the running
// executable that only start-up needed (Executable), and, with Idle, what a
// server keeps only for speed once it has gone quiet.
//
// A Go server's resident set is mostly its own binary: every package's
// initialisation, the migrations and the command tree touch code and
// constant data spread over the whole file, and the kernel maps the pages
// around each touched one as well. Those pages stay counted in the process's
// resident set until memory runs short. They are clean copies of the file,
// so unmapping them loses nothing: the code that runs later is mapped again
// from the page cache on its first use, as the kernel would after reclaiming
// them under pressure.
package memtrim

// Stats says what a trim covered.
type Stats struct {
	// Mappings is the number of read-only mappings of the executable
	// advised (a Go binary has two: code, and constant data).
	Mappings int
	// Bytes is the size of their address ranges, resident or not.
	Bytes int64
}
