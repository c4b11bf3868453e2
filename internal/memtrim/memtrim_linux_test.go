package memtrim

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"os"
	"reflect"
	"testing"
)

const sampleMaps = `00400000-0183e000 r-xp 00000000 fd:01 1234 /srv/smriti
0183e000-03915000 r--p 0143e000 fd:01 1234 /srv/smriti
03915000-039ca000 rw-p 03515000 fd:01 1234 /srv/smriti
039ca000-05a18000 rw-p 00000000 00:00 0
c000000000-c000400000 rw-p 00000000 00:00 0
7f0000000000-7f0000001000 r--p 00000000 fd:01 99 /srv/other.so
7f0000001000-7f0000002000 r-xp 00001000 00:2a 1234 /proc/overlay/copy
7ffd1000000-7ffd1002000 r-xp 00000000 00:00 0 [vdso]
`

func TestExecutableRanges(t *testing.T) {
	tests := []struct {
		name string
		pc   uintptr
		want []mapping
		err  bool
	}{
		{
			name: "CodeAndConstantDataOfTheProgramOnly",
			pc:   0x500000,
			want: []mapping{
				{lo: 0x400000, hi: 0x183e000, perms: "r-xp", dev: "fd:01", inode: "1234"},
				{lo: 0x183e000, hi: 0x3915000, perms: "r--p", dev: "fd:01", inode: "1234"},
			},
		},
		{
			name: "SameInodeOnAnotherDeviceIsAnotherFile",
			pc:   0x7f0000001800,
			want: []mapping{{lo: 0x7f0000001000, hi: 0x7f0000002000, perms: "r-xp", dev: "00:2a", inode: "1234"}},
		},
		{name: "AnonymousCodeIsRefused", pc: 0x7ffd1000100, err: true},
		{name: "UnmappedAddressIsRefused", pc: 0x10, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := executableRanges(sampleMaps, tt.pc)
			if tt.err {
				if err == nil {
					t.Fatalf("executableRanges = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("executableRanges =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// changed lives in the writable data of the test binary; a trim that
// touched writable mappings would put the file's value (1) back.
var changed = 1

func TestExecutableUnmapsCodeAndKeepsData(t *testing.T) {
	changed = 42
	// Run code that nothing runs after the trim, so its page is resident now
	// and must be absent after.
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("resident"))
	w.Close()
	pc := reflect.ValueOf(flate.NewWriter).Pointer()
	if !resident(t, pc) {
		t.Fatalf("the page of flate.NewWriter is not resident after running it")
	}

	st, err := Executable()
	if err != nil {
		t.Fatal(err)
	}
	if st.Mappings != 2 {
		t.Fatalf("Mappings = %d, want 2 (code and constant data)", st.Mappings)
	}
	if resident(t, pc) {
		t.Fatalf("the page of flate.NewWriter is still resident after the trim")
	}
	if changed != 42 {
		t.Fatalf("changed = %d after the trim, want 42: writable data was discarded", changed)
	}
	// The code still runs: its pages come back from the file.
	buf.Reset()
	w, _ = flate.NewWriter(&buf, flate.BestSpeed)
	w.Write([]byte("again"))
	if err := w.Close(); err != nil || buf.Len() == 0 {
		t.Fatalf("flate after the trim: %d bytes, %v", buf.Len(), err)
	}
}

// resident reports whether the page holding addr is mapped in this process,
// from the "present" bit of /proc/self/pagemap.
func resident(t *testing.T, addr uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [8]byte
	if _, err := f.ReadAt(b[:], int64(addr/uintptr(os.Getpagesize()))*8); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(b[:])&(1<<63) != 0
}
