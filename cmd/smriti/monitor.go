package main

import (
	"os"
	"strings"
	"syscall"
)

// The Go runtime's monitor thread (sysmon) sleeps deeply whenever every
// processor is idle, and the next system call wakes it again (a futex wake
// and two context switches), after which it polls every 20 µs for a while.
// A server that goes briefly idle between database round trips hundreds of
// times a second, as a replica with a few concurrent sends does, pays that
// cycle on most requests: measured with each replica held to 15 % of a CPU
// (scripts/ha-load.sh), it was a third of the replica's CPU per send. With
// the runtime's schedtrace setting on, the monitor never sleeps deeply; it
// polls instead, backing off to every 10 ms when there is nothing to do.
// The runtime reads that setting from GODEBUG before main runs, so serve
// runs itself again with it (the same process: exec keeps the pid).
//
// It is the default on PostgreSQL, where replicas are servers with load to
// spare CPU on. Idle, the steady monitor costs about 100 wakeups and 2 ms
// of CPU a second, so on the embedded SQLite database (a laptop that idles
// most of the day) the runtime's default stays. SMRITI_STEADY_MONITOR=on or
// off decides it either way.

// steadyMonitorEnv is "on" or "off" to decide the steady monitor.
const steadyMonitorEnv = "SMRITI_STEADY_MONITOR"

// steadyTrace is the schedtrace period in ms: the longest the runtime takes
// (about 24.8 days). The runtime prints its one-line scheduler summary
// ("SCHED …") to stderr that often, and once at start on a machine up for
// longer than that.
const steadyTrace = "schedtrace=2147483647"

// steadyMonitorEnviron is env with the GODEBUG setting that keeps the
// monitor steady, and false when the monitor stays as it is: env turns it
// off, or GODEBUG already names schedtrace, or byDefault is false and env
// does not turn it on.
func steadyMonitorEnviron(env []string, byDefault bool) ([]string, bool) {
	debug, at := "", -1
	want := byDefault
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, steadyMonitorEnv+"="):
			switch strings.TrimPrefix(kv, steadyMonitorEnv+"=") {
			case "on":
				want = true
			case "off":
				want = false
			}
		case strings.HasPrefix(kv, "GODEBUG="):
			debug, at = strings.TrimPrefix(kv, "GODEBUG="), i
		}
	}
	if !want {
		return nil, false
	}
	for _, setting := range strings.Split(debug, ",") {
		if strings.HasPrefix(strings.TrimSpace(setting), "schedtrace=") {
			return nil, false
		}
	}
	out := append([]string(nil), env...)
	if at < 0 {
		return append(out, "GODEBUG="+steadyTrace), true
	}
	if debug != "" {
		debug += ","
	}
	out[at] = "GODEBUG=" + debug + steadyTrace
	return out, true
}

// steadyMonitor runs this process again with the monitor kept steady when
// it should be (see steadyMonitorEnviron). It returns only when it should
// not, or when exec fails (then the server runs with the runtime's
// default).
func steadyMonitor(byDefault bool) {
	env, ok := steadyMonitorEnviron(os.Environ(), byDefault)
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, env)
}
