// Command load measures a release build of smriti the way the product's
// performance bounds are stated (send throughput against the reference
// program, start-up time, idle memory): it starts `smriti serve` on a temporary SQLite database (or the
// PostgreSQL URL given), times start to the first healthy /health, reads the
// idle RSS, grows one session through the API until its history is past the
// mock model's window (one per -states entry), and then prints sends/s, p50 and p99 at each
// concurrency. With -baseline URL it alternates every round between Smriti
// and that reference server and prints the ratio of their rates.
//
//	go run ./scripts/load -bin bin/smriti
//
// With -mode commit it measures checkpoint commits instead (POST
// /api/v4/chat/commit into one space and session, each commit on the
// previous one, -items decisions and tasks in each): no turns are seeded and
// the turn cache is not filled. -bin may name several binaries, comma
// separated: each round then measures each of them in turn on its own
// fresh server and database, and the medians are printed per binary, so
// that a before/after comparison shares whatever else the machine is doing.
//
//	go run ./scripts/load -mode commit -c 8 -rounds 5 -bin /tmp/smriti-old,bin/smriti
//
// -states measures sessions in each context mode on one server, in turn,
// each against the baseline: FRESH (no space), HEADn (a space whose head
// checkpoint holds n items), MOUNTEDn and FORKEDn (mounted on, forked from
// such a checkpoint). A send with state should cost what a FRESH one does
// (SPEC §7), so the summary gives each against FRESH too:
//
//	go run ./scripts/load -bin bin/smriti -baseline http://127.0.0.1:8100/send -rounds 3 \
//	  -states FRESH,HEAD1,HEAD30,HEAD300,HEAD3000,MOUNTED300,FORKED300
//
// -replicas 1,3 with -db on PostgreSQL measures one replica against three
// on that database instead, each replica held to -cpu-quota with a cgroup of
// its own, the clients spread over the replicas and over -sessions sessions
// per state (replicas.go says why one per client by default):
//
//	go run ./scripts/load -bin /tmp/smriti -db postgres://… -replicas 1,3 -cpu-quota 15% -rounds 3 -n 3000
//
// Everything talks to 127.0.0.1 and every loop is bounded.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type options struct {
	bin, db, baseline, baselineBody string
	mode                            string
	turns, n, rounds, items         int
	hold, idleRelease               time.Duration
	cacheMB                         int
	fill                            bool
	conc                            []int
	states                          []state
	// sessions is the sessions per state the clients spread over.
	sessions int
	// replicas, when set, are the replica counts measured (scripts/load
	// then runs replicas.go's measurement instead of run's).
	replicas   []int
	cpuQuota   string
	gomaxprocs int
}

func main() {
	var o options
	var conc, states, replicas string
	flag.StringVar(&o.bin, "bin", "bin/smriti", "the smriti binary to start (-mode commit and -replicas: several, comma separated, each measured in turn in every round)")
	flag.StringVar(&o.mode, "mode", "send", "what to measure: send (chat sends) or commit (checkpoint commits)")
	flag.IntVar(&o.items, "items", 10, "-mode commit: decisions in each commit (and a tenth as many tasks, at least one)")
	flag.StringVar(&o.db, "db", "", "database for the server (default: a fresh SQLite file in a temporary directory)")
	flag.IntVar(&o.turns, "turns", 1500, "turns the session holds before measuring (sent through the API at c=16)")
	flag.IntVar(&o.n, "n", 2000, "sends per measurement")
	flag.IntVar(&o.rounds, "rounds", 1, "measurements per concurrency (alternating with the baseline when one is given)")
	flag.StringVar(&conc, "c", "1,16", "concurrencies, comma separated")
	flag.StringVar(&o.baseline, "baseline", "", "URL of a reference send endpoint to alternate with (optional)")
	flag.StringVar(&o.baselineBody, "baseline-body", `{"session_id":"s1","message":"hello there"}`, "JSON body for the reference endpoint")
	flag.DurationVar(&o.idleRelease, "idle-release", time.Second, "the server's --idle-release: quiet time before it hands memory back")
	flag.IntVar(&o.cacheMB, "turn-cache-mb", 4, "the server's --turn-cache-mb: the turn cache's memory bound")
	flag.BoolVar(&o.fill, "fill-cache", true, "after the load, fill the turn cache to its bound and read the idle RSS again")
	flag.DurationVar(&o.hold, "hold", 0, "keep the server running this long after the last figure, to inspect it (its pid is printed)")
	flag.StringVar(&states, "states", "FRESH", "the sessions to measure, comma separated: FRESH (no space), HEADn (a space whose head checkpoint has n items), "+
		"MOUNTEDn (mounted on such a checkpoint), FORKEDn (forked from it); e.g. FRESH,HEAD1,HEAD30,HEAD300,HEAD3000,MOUNTED300,FORKED300")
	flag.StringVar(&replicas, "replicas", "", "replica counts to measure against each other on the -db PostgreSQL, e.g. 1,3: that many `smriti serve` processes share the database, "+
		"the clients spread over them round-robin, and every round measures each count in turn (see replicas.go)")
	flag.StringVar(&o.cpuQuota, "cpu-quota", "", "-replicas: confine each replica to this share of one CPU with a cgroup of its own, e.g. 15% (root only)")
	flag.IntVar(&o.sessions, "sessions", 0, "sessions per state the clients spread over, client w on session w % N "+
		"(default 1; with -replicas the largest -c, one session per client: see replicas.go)")
	flag.IntVar(&o.gomaxprocs, "gomaxprocs", 0, "-replicas: GOMAXPROCS of the replicas (default: with -cpu-quota the quota's CPUs rounded up, else the Go runtime's)")
	flag.Parse()
	var err error
	if o.states, err = parseStates(states); err != nil {
		fail(err)
	}
	for _, f := range strings.Split(conc, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || c > 256 {
			fail(fmt.Errorf("bad concurrency %q", f))
		}
		o.conc = append(o.conc, c)
	}
	if o.n < 1 || o.n > 1000000 || o.turns < 0 || o.turns > 1000000 || o.rounds < 1 || o.rounds > 100 {
		fail(errors.New("-n, -turns or -rounds out of range"))
	}
	if o.mode != "send" && o.mode != "commit" {
		fail(fmt.Errorf("-mode is send or commit, not %q", o.mode))
	}
	if o.items < 0 || o.items > 10000 {
		fail(errors.New("-items out of range"))
	}
	if err := replicaOptions(&o, replicas, conc); err != nil {
		fail(err)
	}
	if len(o.replicas) > 0 {
		if err := runReplicas(o); err != nil {
			fail(err)
		}
		return
	}
	if o.mode == "commit" {
		if err := runCommits(o); err != nil {
			fail(err)
		}
		return
	}
	if err := run(o); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}

func run(o options) error {
	tmp, err := os.MkdirTemp("", "smriti-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.bin, err = filepath.Abs(o.bin); err != nil {
		return err
	}
	if o.db == "" {
		o.db = filepath.Join(tmp, "load.db")
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	base := "http://" + addr
	cmd := exec.Command(o.bin, "serve", "--addr", addr, "--db", o.db,
		"--config", filepath.Join(tmp, "none.yaml"), "--env-file", filepath.Join(tmp, "none.env"),
		"--idle-release", o.idleRelease.String(), "--turn-cache-mb", strconv.Itoa(o.cacheMB))
	cmd.Dir = tmp
	// Only the mock provider: no key from the caller's environment reaches the server.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp}
	logf, err := os.Create(filepath.Join(tmp, "server.log"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", o.bin, err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	ready, err := waitHealthy(cl, base+"/health", start)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(tmp, "server.log"))
		return fmt.Errorf("%w\n%s", err, log)
	}
	fmt.Printf("start to first /health: %.1f ms\n", float64(ready.Microseconds())/1000)
	time.Sleep(500 * time.Millisecond)
	idle, err := readRSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle RSS after start: %s\n", idle)

	sendURL := base + "/api/v4/chat/send"
	targets, err := prepareTargets(cl, base, sendURL, o)
	if err != nil {
		return err
	}

	measureRounds(cl, o, sendURL, targets, cmd.Process.Pid)
	busy, err := readRSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("RSS right after the load: %s\n", busy)
	quiet := func(what string) error {
		if o.idleRelease > 0 {
			time.Sleep(o.idleRelease + 1500*time.Millisecond)
		} else {
			time.Sleep(2 * time.Second)
		}
		r, err := readRSS(cmd.Process.Pid)
		if err != nil {
			return err
		}
		fmt.Printf("idle RSS %s: %s\n", what, r)
		return nil
	}
	if err := quiet("after the load"); err != nil {
		return err
	}
	if o.fill && o.cacheMB > 0 {
		sessions, held, err := fillCache(cl, base, int64(o.cacheMB)<<20)
		if err != nil {
			return fmt.Errorf("fill the turn cache: %w", err)
		}
		fmt.Printf("turn cache filled: %d sessions, %.1f of %d MiB by its count\n", sessions, float64(held)/(1<<20), o.cacheMB)
		if err := quiet("with the turn cache full"); err != nil {
			return err
		}
	}
	if o.hold > 0 {
		fmt.Printf("holding server pid %d for %s\n", cmd.Process.Pid, o.hold)
		time.Sleep(o.hold)
	}
	return nil
}

// fillCache sends long messages into new sessions, sixteen at a time, until
// the server's turn cache counts at least nine tenths of its bound; each
// session's history window then sits in the cache. It returns the sessions
// made and the bytes the cache counts.
func fillCache(cl *http.Client, base string, bound int64) (int, int64, error) {
	msg := strings.Repeat("a long message that fills the history window of its session; ", 32)
	sessions := 0
	for sessions < 4000 {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var se struct {
					ID string `json:"id"`
				}
				if err := postJSON(cl, base+"/api/v4/chat/sessions", `{"title":"fill","provider":"mock","model":"mock"}`, 201, &se); err != nil {
					errs <- err
					return
				}
				body := fmt.Sprintf(`{"session_id":%q,"provider":"mock","model":"mock","message":%q}`, se.ID, msg)
				for range 12 {
					if err := postJSON(cl, base+"/api/v4/chat/send", body, 200, nil); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			return sessions, 0, err
		}
		sessions += 16
		held, err := gauge(cl, base+"/metrics", "smriti_turn_cache_bytes")
		if err != nil {
			return sessions, 0, err
		}
		if held >= bound*9/10 {
			return sessions, held, nil
		}
	}
	return sessions, 0, fmt.Errorf("the cache did not reach nine tenths of %d bytes after %d sessions", bound, sessions)
}

// gauge reads one unlabelled series from a Prometheus text page.
func gauge(cl *http.Client, url, name string) (int64, error) {
	resp, err := cl.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("%s has no %s series", url, name)
}

type result struct {
	n, c, errors  int
	rps, p50, p99 float64
	cpu           float64 // the server's CPU ms per send; negative when not measured
}

func (r result) print(target string, round int) {
	cpu := "-"
	if r.cpu >= 0 {
		cpu = fmt.Sprintf("%.3f", r.cpu)
	}
	fmt.Printf("%-12s %5d %4d %7d %10.0f %9.2f %9.2f %7d %14s\n", target, round, r.c, r.n, r.rps, r.p50, r.p99, r.errors, cpu)
}

// measure posts body n times from c workers and times each request.
func measure(cl *http.Client, url, body string, n, c int) result {
	return measureStatus(cl, url, body, n, c, 200)
}

func summarize(lat []time.Duration, n, c, errs int, el time.Duration) result {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(n-1))].Microseconds()) / 1000 }
	return result{n: n, c: c, errors: errs, rps: float64(n) / el.Seconds(), p50: p(0.5), p99: p(0.99)}
}

func postJSON(cl *http.Client, url, body string, want int, out any) error {
	resp, err := cl.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("POST %s: status %d: %s", url, resp.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// waitHealthy polls /health every millisecond for at most ten seconds and
// returns the time from start to the first 200.
func waitHealthy(cl *http.Client, url string, start time.Time) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if resp, err := cl.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, errors.New("the server did not answer /health within 10 s")
}

// rss is a process's resident set from /proc/PID/status, in KiB: the
// whole, and its anonymous (heap, stacks) and file-backed (the binary's own
// pages) parts.
type rss struct{ total, anon, file int }

func readRSS(pid int) (rss, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rss{}, fmt.Errorf("read RSS: %w", err)
	}
	var r rss
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		var dst *int
		switch f[0] {
		case "VmRSS:":
			dst = &r.total
		case "RssAnon:":
			dst = &r.anon
		case "RssFile:":
			dst = &r.file
		default:
			continue
		}
		if *dst, err = strconv.Atoi(f[1]); err != nil {
			return rss{}, fmt.Errorf("read RSS: %q: %w", line, err)
		}
	}
	if r.total == 0 {
		return rss{}, errors.New("read RSS: no VmRSS line")
	}
	return r, nil
}

// String gives MiB, as the kernel counts, and decimal MB, as the memory
// bound is stated.
func (r rss) String() string {
	return fmt.Sprintf("%.1f MiB = %.1f MB (anonymous %.1f MiB, file-backed %.1f MiB)",
		float64(r.total)/1024, float64(r.total)*1024/1e6, float64(r.anon)/1024, float64(r.file)/1024)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// target is one measured state: its name and the send body of each of its
// sessions (one unless -sessions says more); worker w sends bodies[w %
// len(bodies)].
type target struct {
	name   string
	bodies []string
}

// measureRounds prints the send rate of each target at each concurrency,
// o.rounds times, each target's measurement followed by one of the
// baseline when there is one (so every ratio compares measurements taken
// side by side), then the medians: sends/s and p50 per target, against the
// baseline and against FRESH when it was measured (also as the median of
// each round's ratio to FRESH's rate in that round).
func measureRounds(cl *http.Client, o options, sendURL string, targets []target, pid int) {
	fmt.Printf("%-12s %5s %4s %7s %10s %9s %9s %7s %14s\n", "target", "round", "c", "n", "sends/s", "p50 ms", "p99 ms", "errors", "CPU ms/send")
	for _, c := range o.conc {
		rates, p50s, cpus, bases := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
		for round := 1; round <= o.rounds; round++ {
			for _, t := range targets {
				cpu0 := cpuTicks(pid)
				r := measureSpread(cl, []string{sendURL}, t.bodies, o.n, c, 200)
				// The server's own CPU per send moves much less with the
				// machine's other work than the rate does.
				cpu := float64(cpuTicks(pid)-cpu0) * 10 / float64(r.n) // a tick is 10 ms
				r.cpu = cpu
				r.print(t.name, round)
				rates[t.name] = append(rates[t.name], r.rps)
				p50s[t.name] = append(p50s[t.name], r.p50)
				cpus[t.name] = append(cpus[t.name], cpu)
				if o.baseline != "" {
					b := measure(cl, o.baseline, o.baselineBody, o.n, c)
					b.cpu = -1
					b.print("baseline", round)
					bases[t.name] = append(bases[t.name], b.rps)
				}
			}
		}
		fmt.Printf("c=%d, medians over %d rounds:\n", c, o.rounds)
		fmt.Printf("  %-12s %10s %9s %12s %12s %9s %12s %12s %15s\n", "target", "sends/s", "p50 ms", "CPU ms/send", "× baseline", "× FRESH", "p50 × FRESH", "CPU × FRESH", "× FRESH paired")
		fresh, freshP50 := 0.0, 0.0
		if rs, ok := rates["FRESH"]; ok {
			fresh, freshP50 = median(rs), median(p50s["FRESH"])
		}
		for _, t := range targets {
			line := fmt.Sprintf("  %-12s %10.0f %9.2f %12.3f", t.name, median(rates[t.name]), median(p50s[t.name]), median(cpus[t.name]))
			if bs := bases[t.name]; len(bs) > 0 {
				line += fmt.Sprintf(" %12.2f", median(rates[t.name])/median(bs))
			} else {
				line += fmt.Sprintf(" %12s", "-")
			}
			if fresh > 0 {
				// Paired: each round's rate against FRESH's in the same
				// round, so a machine that slows over the run moves both.
				paired := make([]float64, len(rates[t.name]))
				for i, r := range rates[t.name] {
					paired[i] = r / rates["FRESH"][i]
				}
				line += fmt.Sprintf(" %9.2f %12.2f %12.2f %15.2f", median(rates[t.name])/fresh, median(p50s[t.name])/freshP50,
					median(cpus[t.name])/median(cpus["FRESH"]), median(paired))
			}
			fmt.Println(line)
		}
	}
}
