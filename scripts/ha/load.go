package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"smriti/scripts/internal/cgroupquota"
	"smriti/scripts/internal/cpustat"
)

type loadOptions struct {
	c, spaces, rounds int
	each              time.Duration
	fsync             bool
	cpuQuota          string
	what              string
	// old, when set, is a second binary measured beside the first.
	old string
}

// runLoad measures sends/s (and checkpoint commits/s) of one replica
// against three `smriti serve` replicas on one PostgreSQL, alternated, at c
// clients spread over the spaces, and samples which rows the database's
// lock waits are on, what the busy backends wait for, and how many
// statements each request runs. With o.old set, three replicas of that
// binary run beside three of bin, and every round measures both, old first.
func runLoad(bin, root string, o loadOptions) error {
	percent, err := cgroupquota.ParsePercent(o.cpuQuota)
	if err != nil {
		return err
	}
	quota, err := cgroupquota.New(percent)
	if err != nil {
		return err
	}
	defer quota.Remove()
	if serverGOMAXPROCS == 0 {
		// A replica on a machine of its own with that much CPU runs that
		// many Ps (see Quota.Procs).
		serverGOMAXPROCS = quota.Procs()
	}
	whats, err := parseWhat(o.what)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "load")
	p, err := primary(dir, o.fsync)
	if err != nil {
		return err
	}
	defer p.stop("immediate")
	builds := []build{{bin: bin}}
	if o.old != "" {
		builds = []build{{label: "old ", bin: o.old}, {label: "new ", bin: bin}}
	}
	for i := range builds {
		if builds[i].servers, err = startServers(builds[i].bin, dir, p.url(), 3); err != nil {
			return err
		}
		defer func(ss []*server) {
			for _, s := range ss {
				s.stop()
			}
		}(builds[i].servers)
		for _, s := range builds[i].servers {
			if err := quota.Confine(s.cmd.Process.Pid); err != nil {
				return err
			}
		}
	}
	if err := quota.Favour("postgres", p.pids()...); err != nil {
		return err
	}
	if err := quota.Favour("load", os.Getpid()); err != nil {
		return err
	}
	targets, err := makeTargets(builds[0].servers[0].base, o.spaces)
	if err != nil {
		return err
	}
	db, err := p.db()
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := newStatementCounter(db)
	procs := "the Go runtime's default"
	if serverGOMAXPROCS > 0 {
		procs = strconv.Itoa(serverGOMAXPROCS)
	}
	fmt.Printf("PostgreSQL fsync=%v, %d clients over %d spaces (one session each), %s per measurement, %d rounds, %s, replicas' GOMAXPROCS %s\n",
		o.fsync, o.c, o.spaces, o.each, o.rounds, quota, procs)
	for _, b := range builds {
		fmt.Printf("%sreplicas' runtime monitor: %s\n", b.label, monitorOf(b.servers[0].cmd.Process.Pid))
	}
	fmt.Printf("load average before: %s\n", loadAverage())
	for _, b := range builds {
		measure(b.servers, targets, o.c, time.Second, "send", nil) // warm up
	}
	fmt.Printf("%-11s %-9s %9s %8s %8s %7s %7s %6s %5s %6s %8s %-22s  %s\n", "what", "replicas", "per s", "p50 ms", "p99 ms", "errors", "CPU", "thrott", "batch", "stmts", "waits", "CPU ms/request smriti,pg", "top row of the lock waits")
	lr := &loadResults{res: map[string][]float64{}, waits: map[string]*lockSample{}, stmts: map[string]map[string]float64{}, exec: map[string]map[string]float64{}}
	for r := 0; r < o.rounds; r++ {
		for _, what := range whats {
			for _, b := range builds {
				for _, n := range []int{1, 3} {
					lr.round(b.label+what, n, b.servers, p, db, quota, stmts, func(during func(stop <-chan struct{})) measurement {
						return measure(b.servers[:n], targets, o.c, o.each, what, during)
					}, o.each)
				}
			}
		}
	}
	for _, what := range whats {
		for _, b := range builds {
			lr.summary(b.label + what)
		}
	}
	fmt.Printf("load average after: %s\n", loadAverage())
	return nil
}

// build is one binary's three replicas; label prefixes its lines ("" when
// one binary is measured).
type build struct {
	label, bin string
	servers    []*server
}

// loadResults gathers every round's figures by "<label><what>/<replicas>".
type loadResults struct {
	res   map[string][]float64
	waits map[string]*lockSample
	// stmts sums, per key, the statements run per request by kind, and
	// exec the database's time executing them per request (ms).
	stmts, exec map[string]map[string]float64
}

// round runs one measurement with the samplers around it and prints its
// line.
func (lr *loadResults) round(what string, n int, servers []*server, p *node, db *sql.DB, quota *cgroupquota.Quota, sc *statementCounter,
	run func(during func(stop <-chan struct{})) measurement, each time.Duration) {
	ls := newLockSample()
	busy0, all0 := cpustat.Machine()
	procs0 := processTimes(servers, p)
	_, thr0 := quota.Throttled()
	xid0 := xids(db)
	sc.reset()
	m := run(func(stop <-chan struct{}) { ls.run(db, stop) })
	calls, execMS := sc.read()
	procs1 := processTimes(servers, p)
	_, thr1 := quota.Throttled()
	// Requests per write transaction (transaction ids handed out): the
	// group commit's mean batch, over every replica.
	m.batch = float64(m.count) / float64(max(1, xids(db)-xid0))
	// The share of wall time the used replicas spent held back by their
	// quota.
	m.throttled = 100 * (thr1 - thr0) / 1000 / each.Seconds() / float64(n)
	busy1, all1 := cpustat.Machine()
	m.busy = 100 * float64(busy1-busy0) / float64(max(1, all1-all0))
	m.cpuPerOp = perOp(procs0, procs1, m.count)
	key := fmt.Sprintf("%s/%d", what, n)
	lr.res[key] = append(lr.res[key], m.rate)
	lr.res[key+" smriti"] = append(lr.res[key+" smriti"], m.cpuPerOp["smriti"])
	lr.res[key+" postgres"] = append(lr.res[key+" postgres"], m.cpuPerOp["postgres"])
	lr.res[key+" batch"] = append(lr.res[key+" batch"], m.batch)
	lr.res[key+" errors"] = append(lr.res[key+" errors"], float64(m.errors))
	total := 0.0
	if lr.stmts[key] == nil {
		lr.stmts[key] = map[string]float64{}
	}
	for k, v := range calls {
		per := float64(v) / float64(max(1, m.count))
		total += per
		lr.stmts[key][k] += per
	}
	lr.res[key+" stmts"] = append(lr.res[key+" stmts"], total)
	if lr.exec[key] == nil {
		lr.exec[key] = map[string]float64{}
	}
	for k, v := range execMS {
		lr.exec[key][k] += v / float64(max(1, m.count))
	}
	if lr.waits[key] == nil {
		lr.waits[key] = newLockSample()
	}
	lr.waits[key].add(ls)
	row, share := ls.top()
	fmt.Printf("%-11s %-9d %9.0f %8.2f %8.2f %7d %6.0f%% %5.0f%% %5.1f %6.2f %8d %-22s  %s %.0f%%\n", what, n, m.rate, m.p50, m.p99, m.errors, m.busy, m.throttled, m.batch, total, ls.total,
		fmt.Sprintf("%.2f, %.2f", m.cpuPerOp["smriti"], m.cpuPerOp["postgres"]), row, 100*share)
}

// summary prints the medians of what's rounds.
func (lr *loadResults) summary(what string) {
	res, waits := lr.res, lr.waits
	one, three := median(res[what+"/1"]), median(res[what+"/3"])
	row1, share1 := waits[what+"/1"].top()
	row3, share3 := waits[what+"/3"].top()
	fmt.Printf("%s: 3 replicas / 1 replica = %.2f (medians %.0f / %.0f per s; failed requests %.0f / %.0f in all); lock waits on one row: 1 replica %.1f%% of %d (%s), 3 replicas %.1f%% of %d (%s)\n",
		what, three/one, three, one, sum(res[what+"/3 errors"]), sum(res[what+"/1 errors"]), 100*share1, waits[what+"/1"].total, row1, 100*share3, waits[what+"/3"].total, row3)
	fmt.Printf("%s: what the sampled lock waits were on, 3 replicas: %s\n", what, waits[what+"/3"].breakdown(4))
	for _, n := range []string{"1", "3"} {
		k := what + "/" + n
		fmt.Printf("%s: medians, %s replica(s): CPU ms/request smriti %.2f, PostgreSQL %.2f; requests per write transaction %.1f; statements per request %.2f\n",
			what, n, median(res[k+" smriti"]), median(res[k+" postgres"]), median(res[k+" batch"]), median(res[k+" stmts"]))
		fmt.Printf("%s: statements per request by kind, %s replica(s) (mean of the rounds): %s\n", what, n, perKind(lr.stmts[k], len(res[k]), "%.2f"))
		fmt.Printf("%s: PostgreSQL's execution time per request by kind, ms, %s replica(s): %s\n", what, n, perKind(lr.exec[k], len(res[k]), "%.3f"))
		w := waits[k]
		fmt.Printf("%s: busy backends per sample, %s replica(s): %.2f; what they waited for: %s\n", what, n,
			float64(w.eventTotal)/float64(max(1, w.ticks)), w.topEvents(6))
	}
}

type measurement struct {
	rate, p50, p99 float64
	errors         int
	batch          float64 // successful requests per write transaction
	throttled      float64 // percent of the time a used replica was held back by its CPU quota
	busy           float64 // the machine's CPUs busy, percent (every process, not only these)
	count          int     // successful requests
	// cpuPerOp is the CPU time, in ms, that the smriti replicas together and
	// PostgreSQL's processes together spent per successful request.
	cpuPerOp map[string]float64
}

// processTimes sums the CPU time (ns, cpustat.Nanos) of the servers (under
// "smriti") and of the cluster's PostgreSQL processes, the postmaster and its
// children (under "postgres"); other processes on the machine are left out.
func processTimes(servers []*server, p *node) map[string]int64 {
	out := map[string]int64{}
	for _, s := range servers {
		out["smriti"] += cpustat.Nanos(s.cmd.Process.Pid)
	}
	for _, pid := range p.pids() {
		out["postgres"] += cpustat.Nanos(pid)
	}
	return out
}

// pids are the node's postmaster's and its children's, postmaster first.
func (n *node) pids() []int {
	pidFile, err := os.ReadFile(filepath.Join(n.data(), "postmaster.pid"))
	if err != nil {
		return nil
	}
	first, _, _ := strings.Cut(string(pidFile), "\n")
	postmaster, _ := strconv.Atoi(strings.TrimSpace(first))
	return cpustat.Family(postmaster)
}

// perOp turns two processTimes readings into CPU ms per request. A
// PostgreSQL backend that ended in between is missed, so the figure is a
// floor; in a measurement none should (connections are pooled).
func perOp(before, after map[string]int64, n int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		out[k] = float64(v-before[k]) / 1e6 / float64(max(1, n))
	}
	return out
}

// measure runs c clients for d against servers (spread by workers) and
// returns the successful requests per second.
func measure(servers []*server, targets []target, c int, d time.Duration, what string, during func(stop <-chan struct{})) measurement {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	if during != nil {
		wg.Add(1)
		go func() { defer wg.Done(); during(stop) }()
	}
	start := time.Now()
	workers(servers, targets, c, stop, &wg, func(srv *server, tg target, w, n int) {
		t0 := time.Now()
		var err error
		if what == "send" {
			body := fmt.Sprintf(`{"session_id":%q,"provider":"mock","model":"mock","message":"load w%d n%d"}`, tg.session, w, n)
			_, _, err = post(srv.base+"/api/v4/chat/send", body, 200, nil)
		} else {
			body := fmt.Sprintf(`{"repo_id":%q,"session_id":%q,"message":"load w%d n%d"}`, tg.space, tg.session, w, n)
			_, _, err = post(srv.base+"/api/v4/chat/commit", body, 201, nil)
		}
		mu.Lock()
		if err != nil {
			errs++
		} else {
			lat = append(lat, time.Since(t0))
		}
		mu.Unlock()
	})
	time.Sleep(d)
	close(stop)
	wg.Wait()
	el := time.Since(start).Seconds()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	m := measurement{rate: float64(len(lat)) / el, errors: errs, count: len(lat)}
	if len(lat) > 0 {
		m.p50 = float64(lat[len(lat)/2].Microseconds()) / 1000
		m.p99 = float64(lat[len(lat)*99/100].Microseconds()) / 1000
	}
	return m
}

// lockSample counts, every 10 ms, the client backends waiting for a lock
// (pg_stat_activity.wait_event_type = 'Lock') by the row they wait for: the
// tuple lock they hold or wait on names the row version, whose first column
// (the key) is read back from the page (a row's version moves with every
// update, its key does not).
type lockSample struct {
	total int
	rows  map[string]int
	// events counts, at the same ticks, every busy client backend (not
	// idle) by what it waits for, "CPU" when it waits for nothing, with
	// the samples in eventTotal.
	events     map[string]int
	eventTotal int
	ticks      int
}

func newLockSample() *lockSample {
	return &lockSample{rows: map[string]int{}, events: map[string]int{}}
}

func (l *lockSample) add(o *lockSample) {
	l.total += o.total
	for k, v := range o.rows {
		l.rows[k] += v
	}
	l.eventTotal += o.eventTotal
	l.ticks += o.ticks
	for k, v := range o.events {
		l.events[k] += v
	}
}

// topEvents lists the n commonest wait events of busy backends with their
// shares of the samples.
func (l *lockSample) topEvents(n int) string {
	return topShares(l.events, l.eventTotal, n)
}

func topShares(m map[string]int, total, n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || all[i].v == all[j].v && all[i].k < all[j].k })
	var parts []string
	for i := 0; i < len(all) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", all[i].k, 100*float64(all[i].v)/float64(max(1, total))))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// top is the row with the most waits and its share of all sampled waits
// (waits not on a row — extending a table, a transaction id — count in the
// total but are no row).
func (l *lockSample) top() (string, float64) {
	best, n := "none", 0
	for k, v := range l.rows {
		if !strings.HasPrefix(k, "not a row") && v > n {
			best, n = k, v
		}
	}
	if l.total == 0 {
		return best, 0
	}
	return best, float64(n) / float64(l.total)
}

// breakdown lists the n most waited-on keys with their shares.
func (l *lockSample) breakdown(n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range l.rows {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	var parts []string
	for i := 0; i < len(all) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", all[i].k, 100*float64(all[i].v)/float64(l.total)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (l *lockSample) run(db *sql.DB, stop <-chan struct{}) {
	ctx := context.Background()
	// Superuser on the throwaway cluster: pageinspect reads row versions.
	db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pageinspect`)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		l.ticks++
		if evs, err := db.QueryContext(ctx, `SELECT COALESCE(wait_event_type || ':' || wait_event, 'CPU'), state
			FROM pg_stat_activity WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()`); err == nil {
			for evs.Next() {
				var ev, state string
				if evs.Scan(&ev, &state) == nil {
					if state != "active" {
						ev = state + " " + ev // idle in transaction: the replica has the turn
					}
					l.events[ev]++
					l.eventTotal++
				}
			}
			evs.Close()
		}
		rows, err := db.QueryContext(ctx, `SELECT a.wait_event, COALESCE(l.relation::regclass::text, ''), COALESCE(l.page, 0), COALESCE(l.tuple, 0)
			FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'tuple'
			WHERE a.wait_event_type = 'Lock' AND a.backend_type = 'client backend'`)
		if err != nil {
			continue
		}
		type wait struct {
			event, rel string
			page, tup  int64
		}
		var ws []wait
		for rows.Next() {
			var w wait
			if rows.Scan(&w.event, &w.rel, &w.page, &w.tup) == nil {
				ws = append(ws, w)
			}
		}
		rows.Close()
		for _, w := range ws {
			l.total++
			key := "not a row (" + w.event + ")"
			if w.rel != "" {
				// The version may be dead already (its updater committed):
				// pageinspect reads its first column from the page itself.
				var row string
				err := db.QueryRowContext(ctx, `SELECT encode(t_attrs[1], 'hex') FROM heap_page_item_attrs(get_raw_page($1, $2::int), $1::regclass)
					WHERE lp = $3`, w.rel, w.page, w.tup).Scan(&row)
				if err == nil {
					key = w.rel + " " + row
				} else {
					key = fmt.Sprintf("%s (%d,%d)", w.rel, w.page, w.tup)
				}
			}
			l.rows[key]++
		}
	}
}

// xids is the next transaction id PostgreSQL will hand out; only a
// transaction that writes takes one.
func xids(db *sql.DB) int64 {
	var n int64
	db.QueryRow(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&n)
	return n
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// parseWhat reads -what: send, commit or both, comma-separated.
func parseWhat(what string) ([]string, error) {
	var whats []string
	for _, w := range strings.Split(what, ",") {
		if w = strings.TrimSpace(w); w != "send" && w != "commit" {
			return nil, fmt.Errorf("-what %q: want send, commit or send,commit", what)
		}
		whats = append(whats, w)
	}
	return whats, nil
}

// monitorOf names how the replica with this pid runs the Go runtime's
// monitor thread: "steady" when serve ran itself again with GODEBUG's
// schedtrace (its default on PostgreSQL), else "the runtime's default"
// (SMRITI_STEADY_MONITOR=off).
func monitorOf(pid int) string {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return "unknown"
	}
	for _, kv := range strings.Split(string(env), "\x00") {
		if strings.HasPrefix(kv, "GODEBUG=") && strings.Contains(kv, "schedtrace=") {
			return "steady (" + kv + ")"
		}
	}
	return "the runtime's default"
}
