// Package nonnil turns nil slices and maps into empty ones, so that JSON
// shows [] and {} where a list or an object is expected, never null.
package nonnil

// Slice returns s, or an empty slice when s is nil.
func Slice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Map returns m, or an empty map when m is nil.
func Map[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// Convert returns f of each element of in, in order, as a non-nil slice.
func Convert[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
