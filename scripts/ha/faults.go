package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// A fault scenario runs the load against `smriti serve` processes, breaks
// the database at t0, has it back at `back`, and then checks what the
// clients were told against what the database holds.
type scenario struct {
	name    string
	servers []*server
	load    load
	ready   readiness
	stopL   chan struct{}
	wg      sync.WaitGroup
	t0      time.Time
	back    time.Time
}

func (sc *scenario) begin(servers []*server, targets []target, c int) {
	sc.servers, sc.stopL = servers, make(chan struct{})
	sc.ready.run(servers, sc.stopL, &sc.wg)
	sc.load.run(servers, targets, c, sc.name, sc.stopL, &sc.wg)
}

func (sc *scenario) end() {
	close(sc.stopL)
	sc.wg.Wait()
	for _, s := range sc.servers {
		s.stop()
	}
}

// check compares the outcomes with the stored messages, prints the counts
// and returns what went wrong.
func (sc *scenario) check(counts map[string]int) error {
	var acked, errAndStored, lost, dups, transport, no503Retry, okAfter int
	byStatus := map[int]int{}
	var lastErr time.Time
	for _, o := range sc.load.outcomes {
		n := counts[o.msg]
		if n > 1 {
			dups++
		}
		switch o.status {
		case 200:
			acked++
			if n == 0 {
				lost++
			}
			continue
		case 0:
			transport++
		case 503:
			if !o.retryAfter {
				no503Retry++
			}
		}
		byStatus[o.status]++
		if n == 1 {
			errAndStored++
		}
		if o.end.After(lastErr) {
			lastErr = o.end
		}
	}
	for _, o := range sc.load.outcomes {
		if o.status == 200 && o.start.After(lastErr) {
			okAfter++
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	var st []string
	keys := make([]int, 0, len(byStatus))
	for k := range byStatus {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		name := fmt.Sprint(k)
		if k == 0 {
			name = "no answer"
		}
		st = append(st, fmt.Sprintf("%s: %d", name, byStatus[k]))
	}
	recovery := "no failed request"
	if !lastErr.IsZero() {
		recovery = fmt.Sprintf("last failed request ended %.1f s after the fault, %.1f s after the database was back",
			lastErr.Sub(sc.t0).Seconds(), lastErr.Sub(sc.back).Seconds())
	}
	fmt.Printf("%s: acked %d, stored %d (%d of them answered with an error), lost %d, duplicates %d; errors by status {%s}, %d 503s without Retry-After; %s; %d sends succeeded after it\n",
		sc.name, acked, total, errAndStored, lost, dups, strings.Join(st, ", "), no503Retry, recovery, okAfter)
	fmt.Printf("%s: /health/ready: %s\n", sc.name, sc.ready.summary(sc.t0))
	var problems []string
	if lost > 0 {
		problems = append(problems, fmt.Sprintf("%d acknowledged writes lost", lost))
	}
	if dups > 0 {
		problems = append(problems, fmt.Sprintf("%d messages stored twice", dups))
	}
	for k, n := range byStatus {
		if k != 503 {
			problems = append(problems, fmt.Sprintf("%d answers with status %d (want only 503)", n, k))
		}
	}
	if no503Retry > 0 {
		problems = append(problems, fmt.Sprintf("%d 503s without Retry-After", no503Retry))
	}
	// A short fault can be absorbed whole by the store's retry on a fresh
	// connection; only a longer one must reach some client as a 503.
	if byStatus[503] == 0 && sc.back.Sub(sc.t0) >= time.Second {
		problems = append(problems, "no client was told 503 during the fault")
	}
	if okAfter == 0 {
		problems = append(problems, "no send succeeded after the fault")
	}
	problems = append(problems, sc.readyProblems()...)
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", sc.name, strings.Join(problems, "; "))
	}
	return nil
}

// readyProblems: every server was ready before the fault, not ready at some
// point during it, and ready at the end. A database away for less than the
// readiness check's own deadline (1 s) may never be seen as away — a check
// begun in the gap waits for the new primary and answers truthfully that it
// is ready — so "not ready during it" is required only of longer faults.
func (sc *scenario) readyProblems() []string {
	mustSeeNotReady := sc.back.Sub(sc.t0) >= time.Second
	var out []string
	for i := range sc.servers {
		var before, during, last int = 0, 0, -1
		for _, s := range sc.ready.states {
			if s.server != i {
				continue
			}
			switch {
			case s.at.Before(sc.t0):
				if s.status == 200 {
					before++
				}
			case s.at.Before(sc.back.Add(500*time.Millisecond)) && s.status != 200:
				during++
			}
			last = s.status
		}
		if before == 0 || (during == 0 && mustSeeNotReady) || last != 200 {
			out = append(out, fmt.Sprintf("server %d /health/ready: %d ready answers before the fault, %d not-ready during it, %d at the end", i, before, during, last))
		}
	}
	return out
}

// startServers starts n servers on db.
func startServers(bin, dir, db string, n int) ([]*server, error) {
	var out []*server
	for i := 0; i < n; i++ {
		s, err := startServer(bin, dir, db)
		if err != nil {
			for _, o := range out {
				o.stop()
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// underLoad starts two servers on url with load over four targets, breaks
// the database with fault at t0 after 3 s of load (fault returns when the
// database is back), lets the servers settle for settle, and then checks
// what the clients were told against what checkURL's database holds.
// report, when set, prints what the scenario saw before the check.
func (sc *scenario) underLoad(bin, dir, url, checkURL string, fault func() error, settle time.Duration, report func()) error {
	servers, err := startServers(bin, dir, url, 2)
	if err != nil {
		return err
	}
	targets, err := makeTargets(servers[0].base, 4)
	if err != nil {
		for _, s := range servers {
			s.stop()
		}
		return err
	}
	sc.begin(servers, targets, 8)
	time.Sleep(3 * time.Second)
	sc.t0 = time.Now()
	err = fault()
	sc.back = time.Now()
	if err != nil {
		sc.end()
		return err
	}
	time.Sleep(settle)
	sc.end()
	if report != nil {
		report()
	}
	counts, err := stored(context.Background(), checkURL, sc.name)
	if err != nil {
		return err
	}
	return sc.check(counts)
}

// primaryWithSyncStandby starts a primary and a standby it waits for on
// every commit (synchronous_standby_names); stop stops both.
func primaryWithSyncStandby(dir string) (p, s *node, stop func(), err error) {
	if p, err = primary(dir, false); err != nil {
		return nil, nil, nil, err
	}
	if s, err = standby(dir, p, "standby1"); err != nil {
		p.stop("immediate")
		return nil, nil, nil, err
	}
	stop = func() {
		s.stop("immediate")
		p.stop("immediate")
	}
	if err = makeSync(p, "standby1"); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return p, s, stop, nil
}

// faultPromote: a primary with a synchronous standby crashes under load
// and the standby is promoted; the servers reach it through a multi-host
// URL that asks for the read-write server (the old primary stays down: it
// is fenced).
func faultPromote(bin, root string) error {
	dir := filepath.Join(root, "promote")
	p, s, stop, err := primaryWithSyncStandby(dir)
	if err != nil {
		return err
	}
	defer stop()
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write", p.port, s.port)
	sc := &scenario{name: "promote"}
	return sc.underLoad(bin, dir, url, s.url(), func() error {
		if err := p.stop("immediate"); err != nil {
			return err
		}
		return s.promote()
	}, 7*time.Second, func() {
		drops := 0
		for _, srv := range sc.servers {
			drops += srv.logCount("dropped the turn cache")
		}
		fmt.Printf("promote: the standby was promoted %.1f s after the primary crashed; %d of 2 servers dropped their turn cache on the new timeline\n",
			sc.back.Sub(sc.t0).Seconds(), drops)
	})
}

// faultSyncRep: the synchronous standby stops, so every COMMIT waits in
// SyncRep; those backends are terminated (their transactions have committed
// locally: the client's COMMIT fails although the write is there), then the
// standby comes back.
func faultSyncRep(bin, root string) error {
	dir := filepath.Join(root, "syncrep")
	p, s, stop, err := primaryWithSyncStandby(dir)
	if err != nil {
		return err
	}
	defer stop()
	db, err := p.db()
	if err != nil {
		return err
	}
	defer db.Close()
	sc := &scenario{name: "syncrep"}
	terminated := 0
	err = sc.underLoad(bin, dir, p.url(), p.url(), func() error {
		if err := s.stop("fast"); err != nil {
			return err
		}
		for until := time.Now().Add(4 * time.Second); time.Now().Before(until); {
			var n int
			if err := db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`).Scan(&n); err == nil {
				terminated += n
			}
			time.Sleep(100 * time.Millisecond)
		}
		return s.start()
	}, 5*time.Second, func() {
		fmt.Printf("syncrep: %d backends waiting in SyncRep terminated while the standby was away\n", terminated)
	})
	if err == nil && terminated == 0 {
		return errors.New("syncrep: no backend was waiting in SyncRep: the case was not exercised")
	}
	return err
}

// faultStop: the database is stopped for 10 s under load and started
// again; the servers are not restarted.
func faultStop(bin, root string) error {
	dir := filepath.Join(root, "stop")
	p, err := primary(dir, false)
	if err != nil {
		return err
	}
	defer p.stop("immediate")
	sc := &scenario{name: "stop10s"}
	return sc.underLoad(bin, dir, p.url(), p.url(), func() error {
		if err := p.stop("fast"); err != nil {
			return err
		}
		time.Sleep(10 * time.Second)
		return p.start()
	}, 5*time.Second, nil)
}
