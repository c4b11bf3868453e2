package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is one `smriti serve` on its own temporary SQLite file (or o.db).
type server struct {
	cmd  *exec.Cmd
	base string
	tmp  string
}

// startServer starts bin on o.db (or a fresh SQLite file) with env added
// to the server's environment.
func startServer(bin string, o options, env ...string) (*server, error) {
	tmp, err := os.MkdirTemp("", "smriti-load-")
	if err != nil {
		return nil, err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	db := o.db
	if db == "" {
		db = filepath.Join(tmp, "load.db")
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db,
		"--config", filepath.Join(tmp, "none.yaml"), "--env-file", filepath.Join(tmp, "none.env"),
		"--idle-release", o.idleRelease.String(), "--turn-cache-mb", strconv.Itoa(o.cacheMB))
	cmd.Dir = tmp
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp}, env...)
	logf, err := os.Create(filepath.Join(tmp, "server.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{cmd: cmd, base: "http://" + addr, tmp: tmp}
	cl := &http.Client{Timeout: 5 * time.Second}
	if _, err := waitHealthy(cl, s.base+"/health", time.Now()); err != nil {
		log, _ := os.ReadFile(filepath.Join(tmp, "server.log"))
		s.stop()
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(s.tmp)
}

// commitBody is a commit of o.items decisions and a tenth as many tasks
// into the session; the same content every time, so after the first commit
// every item is carried from the parent.
func commitBody(o options, space, session string) (string, error) {
	var ds, ts []string
	for i := 0; i < o.items; i++ {
		ds = append(ds, fmt.Sprintf("Decision %d: service %d keeps its cache for %d minutes", i, i*7, i%60))
	}
	for i := 0; i < max(1, o.items/10); i++ {
		ts = append(ts, fmt.Sprintf("Task %d: move the gateway %d config", i, i))
	}
	b, err := json.Marshal(map[string]any{"repo_id": space, "session_id": session, "message": "load",
		"summary": "the state of the load test so far", "decisions": ds, "tasks": ts})
	return string(b), err
}

// runCommits measures checkpoint commits: each round starts every binary
// in turn on a fresh database, warms it up and measures it at each
// concurrency.
func runCommits(o options) error {
	bins := strings.Split(o.bin, ",")
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	rates, cpus := map[string][]float64{}, map[string][]float64{}
	fmt.Printf("commits of %d decisions, %d rounds\n", o.items, o.rounds)
	fmt.Printf("%-24s %5s %4s %7s %10s %9s %9s %7s %12s  %s\n", "binary", "round", "c", "n", "commits/s", "p50 ms", "p99 ms", "errors", "CPU ms/commit", "load average")
	for round := 1; round <= o.rounds; round++ {
		for _, bin := range bins {
			s, err := startServer(bin, o)
			if err != nil {
				return err
			}
			err = func() error {
				var sp, se struct {
					ID string `json:"id"`
				}
				if err := postJSON(cl, s.base+"/api/v2/repos", `{"name":"load"}`, 201, &sp); err != nil {
					return fmt.Errorf("create space: %w", err)
				}
				if err := postJSON(cl, s.base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"load","provider":"mock","model":"mock","repo_id":%q}`, sp.ID), 201, &se); err != nil {
					return fmt.Errorf("create session: %w", err)
				}
				body, err := commitBody(o, sp.ID, se.ID)
				if err != nil {
					return err
				}
				url := s.base + "/api/v4/chat/commit"
				if w := measureStatus(cl, url, body, min(200, o.n), 8, 201); w.errors > 0 {
					return fmt.Errorf("warm-up: %d of %d commits failed", w.errors, w.n)
				}
				for _, c := range o.conc {
					cpu0 := cpuTicks(s.cmd.Process.Pid)
					r := measureStatus(cl, url, body, o.n, c, 201)
					cpu := float64(cpuTicks(s.cmd.Process.Pid)-cpu0) * 10 / float64(r.n) // a tick is 10 ms
					la, _ := os.ReadFile("/proc/loadavg")
					fmt.Printf("%-24s %5d %4d %7d %10.0f %9.2f %9.2f %7d %12.3f  %s\n", filepath.Base(bin), round, c, r.n, r.rps, r.p50, r.p99, r.errors, cpu,
						strings.Join(strings.Fields(string(la))[:3], " "))
					key := fmt.Sprintf("%s c=%d", bin, c)
					rates[key] = append(rates[key], r.rps)
					cpus[key] = append(cpus[key], cpu)
				}
				return nil
			}()
			s.stop()
			if err != nil {
				return err
			}
		}
	}
	for _, c := range o.conc {
		for _, bin := range bins {
			rs := rates[fmt.Sprintf("%s c=%d", bin, c)]

			key := fmt.Sprintf("%s c=%d", bin, c)
			fmt.Printf("median %-24s c=%d: %.0f commits/s, server CPU %.3f ms a commit, over %d rounds\n", filepath.Base(bin), c, median(rs), median(cpus[key]), len(rs))
		}
	}
	return nil
}

// measureStatus is measure with the status a success answers.
func measureStatus(cl *http.Client, url, body string, n, c, want int) result {
	return measureSpread(cl, []string{url}, []string{body}, n, c, want)
}

// measureSpread posts n requests from c workers: worker w posts
// bodies[w % len(bodies)] to urls[w % len(urls)], so that each worker stays
// on one server and one session, as one client of a load balancer with
// sticky sessions does.
func measureSpread(cl *http.Client, urls, bodies []string, n, c, want int) result {
	lat := make([]time.Duration, n)
	var mu sync.Mutex
	next, errs := 0, 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url, body := urls[w%len(urls)], bodies[w%len(bodies)]
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				t0 := time.Now()
				err := postJSON(cl, url, body, want, nil)
				lat[i] = time.Since(t0)
				if err != nil {
					mu.Lock()
					if errs == 0 {
						fmt.Fprintln(os.Stderr, "load:", err)
					}
					errs++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return summarize(lat, n, c, errs, el)
}

// cpuTicks is a process's user and system time from /proc/PID/stat, in
// clock ticks (USER_HZ, 100 a second on Linux); 0 when unreadable.
func cpuTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces: the fields start after its ")".
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}
