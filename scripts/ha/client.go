package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverGOMAXPROCS, when positive, is the GOMAXPROCS of every server.
var serverGOMAXPROCS int

// server is one `smriti serve` process.
type server struct {
	base string
	cmd  *exec.Cmd
	log  string
}

// startServer runs the binary on db and waits until /health/live answers
// (the database may still be away: the server waits for it, --db-wait).
func startServer(bin, dir, db string, extra ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logPath := filepath.Join(dir, fmt.Sprintf("smriti-%d.log", port))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", addr, "--db", db, "--config", filepath.Join(dir, "none.yaml"),
		"--env-file", "", "--db-wait", "2m"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// Only the mock provider: no key from the caller's environment reaches the server.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if v, ok := os.LookupEnv("SMRITI_STEADY_MONITOR"); ok {
		// SMRITI_STEADY_MONITOR=off measures the runtime's default monitor.
		cmd.Env = append(cmd.Env, "SMRITI_STEADY_MONITOR="+v)
	}
	if serverGOMAXPROCS > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", serverGOMAXPROCS))
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{base: "http://" + addr, cmd: cmd, log: logPath}
	cl := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := cl.Get(s.base + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			out, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("smriti serve did not become ready: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// logCount counts the lines of the server's log that contain s.
func (s *server) logCount(sub string) int {
	data, _ := os.ReadFile(s.log)
	return strings.Count(string(data), sub)
}

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// post sends a JSON body and decodes a JSON answer into out when the
// status is want.
func post(url, body string, want int, out any) (int, http.Header, error) {
	resp, err := httpClient.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return resp.StatusCode, resp.Header, fmt.Errorf("%s: %d %s", url, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, resp.Header, err
		}
	}
	return resp.StatusCode, resp.Header, nil
}

// target is a session in a space to send to.
type target struct{ space, session string }

// makeTargets creates n spaces with one session each.
func makeTargets(base string, n int) ([]target, error) {
	var out []target
	for i := 0; i < n; i++ {
		var sp, se struct {
			ID string `json:"id"`
		}
		if _, _, err := post(base+"/api/v2/repos", fmt.Sprintf(`{"name":"space %d"}`, i), 201, &sp); err != nil {
			return nil, err
		}
		if _, _, err := post(base+"/api/v4/chat/spaces/"+sp.ID+"/sessions", `{"title":"load","provider":"mock","model":"mock"}`, 201, &se); err != nil {
			return nil, err
		}
		out = append(out, target{sp.ID, se.ID})
	}
	return out, nil
}

// outcome is one request of the load.
type outcome struct {
	msg        string
	start, end time.Time
	status     int // 0: no answer
	retryAfter bool
}

// workers runs c workers until stop is closed: worker w uses server
// w % len(servers) and target w % len(targets), and calls do for its n-th
// request, n = 0, 1, ….
func workers(servers []*server, targets []target, c int, stop <-chan struct{}, wg *sync.WaitGroup, do func(srv *server, tg target, w, n int)) {
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv, tg := servers[w%len(servers)], targets[w%len(targets)]
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				do(srv, tg, w, n)
			}
		}()
	}
}

// load sends from c workers until stop is closed. Every message is unique
// and never sent twice: a failed send is not retried, so a message stored
// twice is the server's duplicate.
type load struct {
	mu       sync.Mutex
	outcomes []outcome
}

func (l *load) run(servers []*server, targets []target, c int, prefix string, stop <-chan struct{}, wg *sync.WaitGroup) {
	workers(servers, targets, c, stop, wg, func(srv *server, tg target, w, n int) {
		msg := fmt.Sprintf("%s-w%d-n%d", prefix, w, n)
		o := outcome{msg: msg, start: time.Now()}
		body := fmt.Sprintf(`{"session_id":%q,"provider":"mock","model":"mock","message":%q}`, tg.session, msg)
		status, h, _ := post(srv.base+"/api/v4/chat/send", body, 200, nil)
		o.end, o.status = time.Now(), status
		o.retryAfter = h != nil && h.Get("Retry-After") != ""
		l.mu.Lock()
		l.outcomes = append(l.outcomes, o)
		l.mu.Unlock()
		if status != 200 {
			time.Sleep(50 * time.Millisecond) // as a client backing off
		}
	})
}

// readiness polls /health/ready of each server and records the answers.
type readiness struct {
	mu     sync.Mutex
	states []readyState
}

type readyState struct {
	at     time.Time
	server int
	status int // 0: no answer within 2 s
}

func (r *readiness) run(servers []*server, stop <-chan struct{}, wg *sync.WaitGroup) {
	cl := &http.Client{Timeout: 2 * time.Second}
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				at := time.Now()
				status := 0
				if resp, err := cl.Get(s.base + "/health/ready"); err == nil {
					status = resp.StatusCode
					resp.Body.Close()
				}
				r.mu.Lock()
				r.states = append(r.states, readyState{at, i, status})
				r.mu.Unlock()
				time.Sleep(200 * time.Millisecond)
			}
		}()
	}
}

// summary lists, per server, when /health/ready changed its answer,
// relative to t0.
func (r *readiness) summary(t0 time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.Slice(r.states, func(i, j int) bool { return r.states[i].at.Before(r.states[j].at) })
	last := map[int]int{}
	var parts []string
	for _, s := range r.states {
		if prev, ok := last[s.server]; ok && prev == s.status {
			continue
		}
		last[s.server] = s.status
		parts = append(parts, fmt.Sprintf("server %d %+.1fs %d", s.server, s.at.Sub(t0).Seconds(), s.status))
	}
	return strings.Join(parts, ", ")
}

// stored counts each message among the user turns of the database.
func stored(ctx context.Context, dbURL, prefix string) (map[string]int, error) {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT content, count(*) FROM turns WHERE role = 'user' AND content LIKE $1 GROUP BY content`, prefix+"-%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var c string
		var k int
		if err := rows.Scan(&c, &k); err != nil {
			return nil, err
		}
		out[c] = k
	}
	return out, rows.Err()
}
