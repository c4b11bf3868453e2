// Command syncload measures copies of one space between two `smriti serve`
// processes on 127.0.0.1: it builds a space of -checkpoints checkpoints
// (each with -items items) and -turns turns as a bundle, imports it into
// server A, clones it into server B through a byte-counting proxy, then adds
// one checkpoint on A and times B's fetch and pull of it, and one on B and
// times B's push, five times. It prints checkpoints/s of the clone and the
// CPU time each server spent on it (on a shared machine the wall time
// depends on the other processes, the CPU time does not), each server's
// peak RSS in each phase (the clone, the verification, the rounds), and
// the time, bytes on the wire and round trips of each incremental fetch
// and push, with their medians.
//
//	go run ./scripts/syncload -bin bin/smriti
//	go run ./scripts/syncload -bin bin/smriti -db-b postgres://…   (B on PostgreSQL)
//
// Everything talks to 127.0.0.1 and every loop is bounded.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"smriti"
	"smriti/client"
	"smriti/internal/synthbundle"
	"smriti/wire"
)

// gcTrace, when set, is a directory that receives each server's log with
// the Go collector's trace (a.log, b.log): the heap at each collection.
var gcTrace = flag.String("gctrace", "", "write each server's log, with GODEBUG=gctrace=1, to this directory")

// vacuumA: when A is on PostgreSQL, vacuum and analyze its database after
// the import, so the clone reads a settled space (as a server's would be
// long after its writes) and autovacuum does not run beside the clone.
var vacuumA = flag.Bool("vacuum-a", false, "vacuum A's PostgreSQL database after the import, before the clone")

// envA is more of server A's environment (the answering side), as
// KEY=VALUE pairs separated by spaces.
var envA = flag.String("env-a", "", "more environment for server A: KEY=VALUE pairs separated by spaces")

func main() {
	bin := flag.String("bin", "bin/smriti", "the smriti binary")
	dbA := flag.String("db-a", "", "server A's database (default: a temporary SQLite file)")
	dbB := flag.String("db-b", "", "server B's database (default: a temporary SQLite file)")
	nCheckpoints := flag.Int("checkpoints", 10000, "checkpoints in the space")
	nItems := flag.Int("items", 30, "items in each checkpoint")
	nTurns := flag.Int("turns", 50000, "turns in the space")
	flag.Parse()
	if err := run(*bin, *dbA, *dbB, *nCheckpoints, *nItems, *nTurns); err != nil {
		fmt.Fprintln(os.Stderr, "syncload:", err)
		os.Exit(1)
	}
}

type server struct {
	cmd *exec.Cmd
	url string
}

func start(bin, db, dir, name string) (*server, error) {
	if db == "" {
		db = filepath.Join(dir, name+".db")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--config", filepath.Join(dir, "none.yaml"), "--env-file", filepath.Join(dir, "none.env"))
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if name == "a" {
		cmd.Env = append(cmd.Env, strings.Fields(*envA)...)
	}
	cmd.Stderr, cmd.Stdout = io.Discard, io.Discard
	if *gcTrace != "" {
		// The file stays open until the process ends.
		f, err := os.OpenFile(filepath.Join(*gcTrace, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		cmd.Stderr = f
		cmd.Env = append(cmd.Env, "GODEBUG=gctrace=1")
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr}
	for i := 0; i < 600; i++ {
		if resp, err := http.Get(s.url + "/health"); err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	return nil, fmt.Errorf("%s did not become healthy", name)
}

func (s *server) stop() { s.cmd.Process.Signal(syscall.SIGTERM); s.cmd.Wait() }

// peakRSS is the process's high-water resident set (VmHWM), in MiB.
func (s *server) peakRSS() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}

// resetPeak starts the process's high-water resident set (VmHWM) again
// from its resident set now, so the next peakRSS is one phase's.
func (s *server) resetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0)
}

// phasePeaks prints both servers' peak RSS since the last resetPeak and
// starts the next phase's.
func phasePeaks(phase string, a, b *server) {
	fmt.Printf("peak RSS during %s: A %.1f MiB, B %.1f MiB\n", phase, a.peakRSS(), b.peakRSS())
	for _, s := range []*server{a, b} {
		if err := s.resetPeak(); err != nil {
			fmt.Fprintln(os.Stderr, "syncload: reset the peak RSS:", err)
		}
	}
}

// rss is the process's resident set now, anonymous and file-backed.
func (s *server) rss() string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return "?"
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ", ")
}

// largestMappings names the process's n largest resident mappings (file
// or [heap], [anon] …) with their resident MiB: what a peak RSS is made of.
func (s *server) largestMappings(n int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", s.cmd.Process.Pid))
	if err != nil {
		return "?"
	}
	type mapping struct {
		name string
		kb   int
	}
	var ms []mapping
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			name := "[anon]"
			if len(f) >= 6 {
				name = filepath.Base(f[5])
			}
			ms = append(ms, mapping{name: name})
		case len(f) == 3 && f[0] == "Rss:" && len(ms) > 0:
			fmt.Sscan(f[1], &ms[len(ms)-1].kb)
		}
	}
	slices.SortFunc(ms, func(a, b mapping) int { return b.kb - a.kb })
	var out []string
	for _, m := range ms[:min(n, len(ms))] {
		out = append(out, fmt.Sprintf("%s %.1f", m.name, float64(m.kb)/1024))
	}
	return strings.Join(out, ", ")
}

// meter counts the requests and the bytes both ways through a proxy.
type meter struct {
	requests, up, down atomic.Int64
}

func (m *meter) reset() { m.requests.Store(0); m.up.Store(0); m.down.Store(0) }

func proxy(target string, m *meter) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.requests.Add(1)
		m.up.Add(int64(len(body)))
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		n, _ := io.Copy(w, resp.Body)
		m.down.Add(n)
	}))
}

func run(bin, dbA, dbB string, n, items, turns int) error {
	dir, err := os.MkdirTemp("", "smriti-syncload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	path := filepath.Join(dir, "space.bundle")
	t := time.Now()
	space, err := synthbundle.WriteFile(path, n, items, turns)
	if err != nil {
		return err
	}
	fmt.Printf("bundle: %d checkpoints × %d items, %d turns, built in %s\n", n, items, turns, time.Since(t).Round(time.Millisecond))
	a, err := start(bin, dbA, dir, "a")
	if err != nil {
		return err
	}
	defer func() { a.stop() }()
	b, err := start(bin, dbB, dir, "b")
	if err != nil {
		return err
	}
	defer b.stop()
	ca, cb := client.NewClient(a.url), client.NewClient(b.url)
	// An import or a clone of a large space may take minutes.
	ca.HTTP.Timeout, cb.HTTP.Timeout = 0, 0
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	t = time.Now()
	if _, err := ca.ImportSpace(ctx, f, false); err != nil {
		return fmt.Errorf("import into A: %w", err)
	}
	f.Close()
	fmt.Printf("import into A: %s, %.0f checkpoints/s; peak RSS of A %.1f MiB\n", time.Since(t).Round(time.Millisecond),
		float64(n)/time.Since(t).Seconds(), a.peakRSS())
	if *vacuumA {
		if err := vacuum(dbA); err != nil {
			return err
		}
	}
	// A starts again, so its peak RSS below is the clone's, not the import's.
	a.stop()
	if a, err = start(bin, dbA, dir, "a"); err != nil {
		return err
	}
	ca = client.NewClient(a.url)
	ca.HTTP.Timeout = 0
	var m meter
	px := proxy(a.url, &m)
	defer px.Close()
	id := space.String()
	phasePeaks("start-up", a, b)
	t = time.Now()
	cpuA, cpuB := a.cpu(), b.cpu()
	pgA, pgB := pgCPU(dbA), pgCPU(dbB)
	if _, err := cb.Clone(ctx, wire.CloneRequest{URL: px.URL, SpaceID: &id}); err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	el := time.Since(t)
	cpuA, cpuB = a.cpu()-cpuA, b.cpu()-cpuB
	fmt.Printf("clone A → B: %s, %.0f checkpoints/s, %d requests, %.1f MiB on the wire\n", el.Round(time.Millisecond),
		float64(n)/el.Seconds(), m.requests.Load(), float64(m.up.Load()+m.down.Load())/(1<<20))
	// On a shared machine the wall time depends on the other processes;
	// the CPU time the servers spent does not.
	fmt.Printf("clone CPU time: A %.2fs, B %.2fs (B: %.0f checkpoints per CPU second)\n", cpuA, cpuB, float64(n)/cpuB)
	for _, pg := range []struct {
		name string
		cpu  func() float64
	}{{"A", pgA}, {"B", pgB}} {
		if pg.cpu != nil {
			fmt.Printf("clone CPU time of %s's PostgreSQL backends: %.2fs\n", pg.name, pg.cpu())
		}
	}
	fmt.Printf("A now: %s; B now: %s\n", a.rss(), b.rss())
	fmt.Printf("A's largest mappings now (MiB): %s\n", a.largestMappings(6))
	fmt.Printf("B's largest mappings now (MiB): %s\n", b.largestMappings(6))
	// Each phase's peak apart: the clone's, the verification's, the rounds'.
	phasePeaks("the clone", a, b)

	cpuA, cpuB = a.cpu(), b.cpu()
	if err := sameVerifiedHead(ctx, ca, cb, space, n); err != nil {
		return err
	}
	fmt.Printf("verify CPU time: A %.2fs, B %.2fs\n", a.cpu()-cpuA, b.cpu()-cpuB)
	phasePeaks("the verification", a, b)

	if err := syncRounds(ctx, ca, cb, space, &m); err != nil {
		return err
	}
	phasePeaks("the fetches and pushes", a, b)
	return nil
}

// syncRounds adds one checkpoint on A and times B's fetch and pull of it,
// then one on B and times B's push, rounds times, m counting the bytes and
// round trips through the proxy to A.
func syncRounds(ctx context.Context, ca, cb *client.Client, space smriti.ID, m *meter) error {
	decisions := func(c *client.Client) []string {
		head, err := c.LatestCheckpoint(ctx, space, "main")
		if err != nil {
			return nil
		}
		return head.Decisions
	}
	var t time.Time
	var fetches, pushes []float64
	for round := 0; round < rounds; round++ {
		msg := fmt.Sprintf("On A %d", round)
		if _, err := ca.CommitToSpace(ctx, space, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg, Decisions: append(decisions(ca), msg)}}); err != nil {
			return err
		}
		m.reset()
		t = time.Now()
		fo, err := cb.Fetch(ctx, space, "origin")
		if err != nil {
			return fmt.Errorf("fetch: %w", err)
		}
		fetchEl, fetchReq, fetchBytes := time.Since(t), m.requests.Load(), m.up.Load()+m.down.Load()
		t = time.Now()
		if _, err := cb.Pull(ctx, space, "origin", wire.PullRequest{NoFetch: true}); err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		pullEl := time.Since(t)
		msg = fmt.Sprintf("On B %d", round)
		if _, err := cb.CommitToSpace(ctx, space, wire.SpaceCommitRequest{ContentFields: wire.ContentFields{Message: &msg, Decisions: append(decisions(cb), msg)}}); err != nil {
			return err
		}
		m.reset()
		t = time.Now()
		po, err := cb.Push(ctx, space, "origin", wire.PushRequest{})
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		pushEl := time.Since(t)
		fetches, pushes = append(fetches, ms(fetchEl)), append(pushes, ms(pushEl))
		out, _ := json.Marshal(map[string]any{"round": round, "fetch_ms": ms(fetchEl), "fetch_bytes": fetchBytes, "fetch_round_trips": fetchReq,
			"fetched_checkpoints": fo.Staged.Checkpoints, "pull_ms": ms(pullEl), "push_ms": ms(pushEl), "push_bytes": m.up.Load() + m.down.Load(),
			"push_round_trips": m.requests.Load(), "pushed_checkpoints": po.Stored.Checkpoints})
		fmt.Println(string(out))
	}
	fmt.Printf("median of %d rounds: fetch %.1f ms, push %.1f ms\n", rounds, median(fetches), median(pushes))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sameVerifiedHead checks the clone: main's head is the same checkpoint
// with the same hash on both servers, and on both every one of the n
// checkpoints below it recomputes to its hash.
func sameVerifiedHead(ctx context.Context, ca, cb *client.Client, space smriti.ID, n int) error {
	var hashes []string
	for _, c := range []*client.Client{ca, cb} {
		head, err := c.LatestCheckpoint(ctx, space, "main")
		if err != nil {
			return err
		}
		v, err := c.Verify(ctx, head.ID)
		if err != nil {
			return err
		}
		if !v.OK || v.Checked != n {
			return fmt.Errorf("verify %s on %s: ok %v, %d of %d checkpoints checked", head.ID, c.BaseURL, v.OK, v.Checked, n)
		}
		hashes = append(hashes, head.CommitHash)
	}
	if hashes[0] != hashes[1] {
		return fmt.Errorf("main's head is %s on A and %s on B", hashes[0], hashes[1])
	}
	fmt.Printf("verified: main's head %s is the same on A and B, all %d checkpoints below it check on both\n", hashes[0][:12], n)
	return nil
}

// rounds is how many times one checkpoint is fetched and one pushed.
const rounds = 5

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// cpu is the CPU time the process has used (user and system), in seconds.
func (s *server) cpu() float64 {
	return procCPU(s.cmd.Process.Pid)
}
