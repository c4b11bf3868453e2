// Package cpustat reads CPU time from /proc for the load scripts: a
// process's, its children's and the whole machine's.
package cpustat

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TickMS is the length of a clock tick (USER_HZ is 100 on Linux).
const TickMS = 10

// Process reads a process's parent and its user plus system CPU ticks; 0,
// 0 when it cannot be read (the process ended).
func Process(pid int) (ppid int, ticks int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// pid (comm) state ppid ...: comm may hold spaces, so the fields are
	// counted after its ')'; utime and stime are the 14th and 15th.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0
	}
	rest := strings.Fields(s[end+1:])
	if len(rest) < 13 {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(rest[1])
	ut, _ := strconv.ParseInt(rest[11], 10, 64)
	st, _ := strconv.ParseInt(rest[12], 10, 64)
	return ppid, ut + st
}

// Ticks is Process's CPU ticks alone.
func Ticks(pid int) int64 {
	_, t := Process(pid)
	return t
}

// Family is parent's pid followed by its children's (PostgreSQL's
// postmaster and its backends).
func Family(parent int) []int {
	out := []int{parent}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if ppid, _ := Process(pid); ppid == parent {
			out = append(out, pid)
		}
	}
	return out
}

// Machine reads the machine's busy and total CPU time from /proc/stat.
func Machine() (busy, total int64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	for i, f := range strings.Fields(line)[1:] {
		v, _ := strconv.ParseInt(f, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// Nanos is a process's CPU time in nanoseconds as the scheduler counts it
// (the first field of each thread's /proc/PID/task/TID/schedstat, summed):
// exact, where Process's clock ticks are samples. Threads that ended are
// not counted; 0 when the process is gone.
func Nanos(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/schedstat", pid))
	var n int64
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(data), " ")
		v, _ := strconv.ParseInt(first, 10, 64)
		n += v
	}
	return n
}
