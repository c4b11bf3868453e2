package memtrim

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
)

// Executable unmaps the resident pages of the running executable's
// read-only, private mappings (its code and constant data) with
// madvise(MADV_DONTNEED). Writable mappings are never touched: their pages
// may hold data the program changed. Pages are mapped again from the file on
// their next use, so calling this at any time is safe; it pays off once, after
// start-up.
func Executable() (Stats, error) {
	var st Stats
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return st, fmt.Errorf("read the memory map: %w", err)
	}
	ranges, err := executableRanges(string(maps), reflect.ValueOf(Executable).Pointer())
	if err != nil {
		return st, err
	}
	for _, r := range ranges {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, r.lo, r.hi-r.lo, syscall.MADV_DONTNEED); errno != 0 {
			return st, fmt.Errorf("madvise %#x-%#x: %w", r.lo, r.hi, errno)
		}
		st.Mappings++
		st.Bytes += int64(r.hi - r.lo)
	}
	return st, nil
}

// mapping is one line of /proc/self/maps:
// "start-end perms offset dev inode path".
type mapping struct {
	lo, hi     uintptr
	perms      string
	dev, inode string
}

// executableRanges finds the file mapped where the code address pc lies and
// returns its private, non-writable mappings. The file is known by the
// device and inode the map itself shows, which on overlay file systems
// differ from what stat says of the executable.
func executableRanges(maps string, pc uintptr) ([]mapping, error) {
	var all []mapping
	self := -1
	for _, line := range strings.Split(maps, "\n") {
		m, ok := parseMapping(line)
		if !ok {
			continue
		}
		if m.lo <= pc && pc < m.hi {
			self = len(all)
		}
		all = append(all, m)
	}
	if self < 0 || all[self].inode == "0" {
		return nil, fmt.Errorf("no file mapping holds the program's code at %#x", pc)
	}
	var out []mapping
	for _, m := range all {
		if m.dev == all[self].dev && m.inode == all[self].inode && m.perms[1] == '-' && m.perms[3] == 'p' {
			out = append(out, m)
		}
	}
	return out, nil
}

func parseMapping(line string) (mapping, bool) {
	f := strings.Fields(line)
	if len(f) < 5 || len(f[1]) != 4 {
		return mapping{}, false
	}
	start, end, found := strings.Cut(f[0], "-")
	if !found {
		return mapping{}, false
	}
	a, err1 := strconv.ParseUint(start, 16, 64)
	b, err2 := strconv.ParseUint(end, 16, 64)
	if err1 != nil || err2 != nil || b <= a {
		return mapping{}, false
	}
	return mapping{lo: uintptr(a), hi: uintptr(b), perms: f[1], dev: f[3], inode: f[4]}, true
}
