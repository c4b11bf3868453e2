package main

// Replicas: with -replicas 1,3 (and -db on PostgreSQL) the load starts the
// largest count of `smriti serve` processes on the one database and, in
// every round, measures each count in turn, 1 then 3: the clients spread
// round-robin over the replicas in use (client w on replica w % N) and
// over the state's sessions (client w on session w % S), so each client
// stays on one replica and one session as behind a load balancer with
// sticky sessions. With -cpu-quota 15% each replica runs in a cgroup of its
// own held to that share of one CPU (scripts/internal/cgroupquota, as
// scripts/ha does), PostgreSQL and the load in groups at the highest weight
// without a quota, and the replicas' GOMAXPROCS is the quota's CPUs rounded
// up. With several binaries in -bin, each gets replicas of its own and
// every round measures each binary's counts in turn, so that two builds are
// compared under the same noise.
//
// Sessions per state: one per client by default (-sessions = the largest
// -c). A session is one conversation: its turns are one sequence, assigned
// under the session's row lock, so its sends are written one after another
// whatever replica takes them. Sixteen clients on one session measure that
// row, not the replicas: with three replicas every batch of that session
// waits for the other replicas' batches on the same row. A deployment's
// concurrent sends come from many conversations, each with its own user or
// agent waiting for the reply before sending again, which is what one
// session per client is. -sessions 1 measures the shared session.
//
//	go run ./scripts/load -bin /tmp/smriti -db postgres://… -replicas 1,3 -cpu-quota 15% -rounds 3 -turns 0 -n 4000

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"smriti/scripts/internal/cgroupquota"
	"smriti/scripts/internal/cpustat"
)

// replicaOptions reads -replicas into o and settles the defaults that
// depend on it: -sessions (1, or with replicas the largest -c) and -c
// (16 with replicas when not given: one client cannot spread).
func replicaOptions(o *options, replicas, conc string) error {
	if replicas == "" {
		if o.cpuQuota != "" || o.gomaxprocs != 0 {
			return errors.New("-cpu-quota and -gomaxprocs go with -replicas")
		}
		if o.sessions == 0 {
			o.sessions = 1
		}
		return nil
	}
	for _, f := range strings.Split(replicas, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 16 {
			return fmt.Errorf("-replicas %q: counts of 1 to 16, comma separated", replicas)
		}
		o.replicas = append(o.replicas, n)
	}
	if !strings.HasPrefix(o.db, "postgres://") && !strings.HasPrefix(o.db, "postgresql://") {
		return errors.New("-replicas needs -db with a PostgreSQL URL: a SQLite database has one writer process")
	}
	if o.mode != "send" {
		return errors.New("-replicas measures sends (-mode send)")
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "c" })
	if !set && conc == "1,16" {
		o.conc = []int{16}
	}
	if o.sessions == 0 {
		o.sessions = slices.Max(o.conc)
	}
	if o.sessions < 1 || o.sessions > 1024 {
		return errors.New("-sessions out of range")
	}
	return nil
}

// replicaRun is what one replica measurement needs besides the load.
type replicaRun struct {
	cl         *http.Client
	builds     []replicaBuild
	quota      *cgroupquota.Quota
	db         *sql.DB
	postmaster int
}

// replicaBuild is one binary's replicas: all started, the first n in use
// by a measurement of n. name labels its lines when -bin names several.
type replicaBuild struct {
	name    string
	servers []*server
}

// replicaResult is one measurement with the machine's figures around it.
type replicaResult struct {
	result
	busy      float64 // the machine's CPUs busy, percent (every process)
	throttled float64 // percent of the time a replica in use was held back by its quota
	batch     float64 // successful sends per write transaction (transaction ids taken)
	smritiMS  float64 // the replicas' CPU ms per successful send
	pgMS      float64 // PostgreSQL's CPU ms per successful send
	loadMS    float64 // the load's own CPU ms per successful send (its clients)
}

func runReplicas(o options) error {
	percent, err := cgroupquota.ParsePercent(o.cpuQuota)
	if err != nil {
		return err
	}
	quota, err := cgroupquota.New(percent)
	if err != nil {
		return err
	}
	defer quota.Remove()
	procs := o.gomaxprocs
	if procs == 0 {
		procs = quota.Procs()
	}
	db, err := sql.Open("pgx", o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	// The database must run on this machine: its CPU is counted.
	postmaster, _ := cpustat.Process(backend)
	if postmaster == 0 {
		return errors.New("-replicas: PostgreSQL's processes are not on this machine (its CPU per send is part of the measurement)")
	}
	var env []string
	if procs > 0 {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	if v, ok := os.LookupEnv("SMRITI_STEADY_MONITOR"); ok {
		env = append(env, "SMRITI_STEADY_MONITOR="+v)
	}
	rr := &replicaRun{cl: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}},
		quota: quota, db: db, postmaster: postmaster}
	defer func() {
		for _, b := range rr.builds {
			for _, s := range b.servers {
				s.stop()
			}
		}
	}()
	bins := strings.Split(o.bin, ",")
	for _, bin := range bins {
		b := replicaBuild{}
		if len(bins) > 1 {
			b.name = filepath.Base(bin) + " "
		}
		for range slices.Max(o.replicas) {
			s, err := startServer(bin, o, env...)
			if err != nil {
				return err
			}
			b.servers = append(b.servers, s)
		}
		rr.builds = append(rr.builds, b)
	}
	// Sessions are made and seeded before the quota holds the replicas.
	first := rr.builds[0].servers[0].base
	targets, err := prepareTargets(rr.cl, first, first+"/api/v4/chat/send", o)
	if err != nil {
		return err
	}
	for _, b := range rr.builds {
		for _, s := range b.servers {
			if err := quota.Confine(s.cmd.Process.Pid); err != nil {
				return err
			}
		}
	}
	if err := quota.Favour("postgres", cpustat.Family(postmaster)...); err != nil {
		return err
	}
	if err := quota.Favour("load", os.Getpid()); err != nil {
		return err
	}
	var fsync, syncCommit string
	db.QueryRow(`SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &syncCommit)
	procsText := "the Go runtime's default"
	if procs > 0 {
		procsText = strconv.Itoa(procs)
	}
	fmt.Printf("replicas %v on PostgreSQL (fsync=%s, synchronous_commit=%s), %d sessions per state, %d sends per measurement, %d rounds, %s, replicas' GOMAXPROCS %s\n",
		o.replicas, fsync, syncCommit, o.sessions, o.n, o.rounds, quota, procsText)
	rr.measureAll(o, targets)
	return nil
}

// measureAll warms every replica up, measures o.rounds rounds of each
// replica count at each concurrency and prints the medians.
func (rr *replicaRun) measureAll(o options, targets []target) {
	for _, b := range rr.builds {
		for _, t := range targets {
			// Every replica's turn cache and connections, at the largest c.
			rr.measure(b.servers, t, min(o.n, 1000), slices.Max(o.conc))
		}
	}
	fmt.Printf("%-12s %5s %4s %8s %7s %10s %9s %9s %7s %6s %6s %6s %10s %10s %10s\n", "target", "round", "c", "replicas", "n", "sends/s", "p50 ms", "p99 ms", "errors",
		"busy", "thrott", "batch", "smriti ms", "pg ms", "load ms")
	res := map[string][]replicaResult{}
	for _, c := range o.conc {
		for round := 1; round <= o.rounds; round++ {
			for _, t := range targets {
				for _, b := range rr.builds {
					for _, n := range o.replicas {
						r := rr.measure(b.servers[:n], t, o.n, c)
						fmt.Printf("%-12s %5d %4d %8d %7d %10.0f %9.2f %9.2f %7d %5.0f%% %5.0f%% %6.1f %10.3f %10.3f %10.3f\n", b.name+t.name, round, c, n, r.n, r.rps, r.p50, r.p99, r.errors,
							r.busy, r.throttled, r.batch, r.smritiMS, r.pgMS, r.loadMS)
						key := fmt.Sprintf("%s c=%d/%d", b.name+t.name, c, n)
						res[key] = append(res[key], r)
					}
				}
			}
		}
	}
	for _, c := range o.conc {
		fmt.Printf("c=%d, medians over %d rounds:\n", c, o.rounds)
		fmt.Printf("  %-12s %8s %10s %9s %6s %6s %6s %10s %10s %10s %14s %15s\n", "target", "replicas", "sends/s", "p50 ms", "busy", "thrott", "batch", "smriti ms", "pg ms", "load ms",
			"× first count", "× first paired")
		for _, name := range names(rr.builds, targets) {
			first := res[fmt.Sprintf("%s c=%d/%d", name, c, o.replicas[0])]
			for _, n := range o.replicas {
				rs := res[fmt.Sprintf("%s c=%d/%d", name, c, n)]
				of := func(f func(replicaResult) float64) float64 {
					xs := make([]float64, len(rs))
					for i, r := range rs {
						xs[i] = f(r)
					}
					return median(xs)
				}
				rate := of(func(r replicaResult) float64 { return r.rps })
				firstRate := median(rates(first))
				// Paired: each round's rate against the first count's in
				// the same round, so a machine that slows over the run
				// moves both.
				paired := rates(rs)
				for i := range paired {
					paired[i] /= first[i].rps
				}
				fmt.Printf("  %-12s %8d %10.0f %9.2f %5.0f%% %5.0f%% %6.1f %10.3f %10.3f %10.3f %14.2f %15.2f\n", name, n, rate, of(func(r replicaResult) float64 { return r.p50 }),
					of(func(r replicaResult) float64 { return r.busy }), of(func(r replicaResult) float64 { return r.throttled }),
					of(func(r replicaResult) float64 { return r.batch }), of(func(r replicaResult) float64 { return r.smritiMS }),
					of(func(r replicaResult) float64 { return r.pgMS }), of(func(r replicaResult) float64 { return r.loadMS }), rate/firstRate, median(paired))
			}
		}
	}
}

// names lists the measured lines' names: each build's label with each
// target's.
func names(builds []replicaBuild, targets []target) []string {
	var out []string
	for _, t := range targets {
		for _, b := range builds {
			out = append(out, b.name+t.name)
		}
	}
	return out
}

func rates(rs []replicaResult) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = r.rps
	}
	return xs
}

// measure sends n requests from c clients over servers and t's sessions,
// and reads the machine's figures around it.
func (rr *replicaRun) measure(servers []*server, t target, n, c int) replicaResult {
	urls := make([]string, len(servers))
	for i, s := range servers {
		urls[i] = s.base + "/api/v4/chat/send"
	}
	busy0, all0 := cpustat.Machine()
	_, thr0 := rr.quota.Throttled()
	sm0 := rr.smritiNanos()
	pg0 := familyNanos(rr.postmaster)
	x0 := xids(rr.db)
	me0 := cpustat.Nanos(os.Getpid())
	t0 := time.Now()
	r := replicaResult{result: measureSpread(rr.cl, urls, t.bodies, n, c, 200)}
	el := time.Since(t0).Seconds()
	me1 := cpustat.Nanos(os.Getpid())
	x1 := xids(rr.db)
	pg1 := familyNanos(rr.postmaster)
	sm1 := rr.smritiNanos()
	_, thr1 := rr.quota.Throttled()
	busy1, all1 := cpustat.Machine()
	ok := float64(max(1, r.n-r.errors))
	r.busy = 100 * float64(busy1-busy0) / float64(max(1, all1-all0))
	r.throttled = 100 * (thr1 - thr0) / 1000 / el / float64(len(servers))
	r.batch = ok / float64(max(1, x1-x0))
	r.smritiMS = float64(sm1-sm0) / 1e6 / ok
	pg := int64(0)
	for pid, v := range pg1 {
		// A backend born during the measurement counts from zero; one
		// that ended is missed (the replicas pool their connections).
		pg += v - pg0[pid]
	}
	r.pgMS = float64(pg) / 1e6 / ok
	r.loadMS = float64(me1-me0) / 1e6 / ok
	return r
}

func (rr *replicaRun) smritiNanos() int64 {
	t := int64(0)
	for _, b := range rr.builds {
		for _, s := range b.servers {
			t += cpustat.Nanos(s.cmd.Process.Pid)
		}
	}
	return t
}

// familyNanos reads the CPU time (ns) of the postmaster and its children
// by pid.
func familyNanos(postmaster int) map[int]int64 {
	out := map[int]int64{}
	for _, pid := range cpustat.Family(postmaster) {
		out[pid] = cpustat.Nanos(pid)
	}
	return out
}

// xids is the next transaction id PostgreSQL will hand out; only a
// transaction that writes takes one.
func xids(db *sql.DB) int64 {
	var n int64
	db.QueryRow(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&n)
	return n
}
