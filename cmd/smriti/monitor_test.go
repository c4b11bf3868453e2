package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"smriti/store/storetest"
)

func TestSteadyMonitorEnviron(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       []string
		byDefault bool
		want      []string // nil: the process is not run again
	}{
		{"default on, no GODEBUG", []string{"PATH=/bin"}, true, []string{"PATH=/bin", "GODEBUG=schedtrace=2147483647"}},
		{"default off", []string{"PATH=/bin"}, false, nil},
		{"turned on", []string{"SMRITI_STEADY_MONITOR=on"}, false, []string{"SMRITI_STEADY_MONITOR=on", "GODEBUG=schedtrace=2147483647"}},
		{"turned off", []string{"SMRITI_STEADY_MONITOR=off"}, true, nil},
		{"other settings kept", []string{"GODEBUG=madvdontneed=1", "HOME=/h"}, true, []string{"GODEBUG=madvdontneed=1,schedtrace=2147483647", "HOME=/h"}},
		{"empty GODEBUG", []string{"GODEBUG="}, true, []string{"GODEBUG=schedtrace=2147483647"}},
		{"schedtrace already set", []string{"GODEBUG=gctrace=1, schedtrace=1000"}, true, nil},
		{"an unknown value keeps the default", []string{"SMRITI_STEADY_MONITOR=yes"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.env)
			got, ok := steadyMonitorEnviron(tc.env, tc.byDefault)
			if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
				t.Fatalf("steadyMonitorEnviron(%q, %v) = %q, %v; want %q", tc.env, tc.byDefault, got, ok, tc.want)
			}
			if !slices.Equal(tc.env, before) {
				t.Fatalf("the caller's environment changed: %q", tc.env)
			}
		})
	}
}

// TestServeKeepsMonitorSteady starts `smriti serve` and reads the
// environment the serving process runs with: on PostgreSQL, or when asked,
// it is the started process itself (exec keeps the pid), now with the
// runtime setting; on SQLite by default it is unchanged.
func TestServeKeepsMonitorSteady(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := buildBinary(t)
	godebug := func(t *testing.T, pid int) string {
		t.Helper()
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := strings.CutPrefix(string(kv), "GODEBUG="); ok {
				return v
			}
		}
		return "(unset)"
	}
	serve := func(t *testing.T, db string) string {
		t.Helper()
		cmd := startServer(t, bin, freeAddr(t), db)
		defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
		return godebug(t, cmd.Process.Pid)
	}
	sqlite := func(t *testing.T) string { return filepath.Join(t.TempDir(), "smriti.db") }

	t.Run("sqlite by default", func(t *testing.T) {
		t.Setenv("GODEBUG", "")
		t.Setenv(steadyMonitorEnv, "")
		if got := serve(t, sqlite(t)); got != "" {
			t.Fatalf("GODEBUG = %q, want it as started (empty)", got)
		}
	})
	t.Run("sqlite turned on", func(t *testing.T) {
		t.Setenv("GODEBUG", "madvdontneed=1")
		t.Setenv(steadyMonitorEnv, "on")
		if got, want := serve(t, sqlite(t)), "madvdontneed=1,schedtrace=2147483647"; got != want {
			t.Fatalf("GODEBUG = %q, want %q", got, want)
		}
	})
	t.Run("postgres by default", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		t.Setenv("GODEBUG", "")
		t.Setenv(steadyMonitorEnv, "")
		if got, want := serve(t, dsn), "schedtrace=2147483647"; got != want {
			t.Fatalf("GODEBUG = %q, want %q", got, want)
		}
	})
	t.Run("postgres turned off", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		t.Setenv("GODEBUG", "")
		t.Setenv(steadyMonitorEnv, "off")
		if got := serve(t, dsn); got != "" {
			t.Fatalf("GODEBUG = %q, want it as started (empty)", got)
		}
	})
}
