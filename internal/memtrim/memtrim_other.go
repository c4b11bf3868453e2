//go:build !linux

package memtrim

// Executable does nothing outside Linux.
func Executable() (Stats, error) { return Stats{}, nil }
