package store_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"smriti"
	"smriti/contract"
	"smriti/store"
	"smriti/store/storetest"
)

// startPgbouncer runs Debian's pgbouncer in transaction mode in front of
// the server of dsn and returns dsn rewritten to go through it. It skips
// when pgbouncer is not installed (apt-get install pgbouncer).
func startPgbouncer(t *testing.T, dsn string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/pgbouncer"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("pgbouncer must be installed in CI (scripts/test.sh installs it)")
			}
			t.Skip("pgbouncer not installed")
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(u.Host)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	// Its own directory under the system's temporary one: pgbouncer run
	// as nobody must reach it, and a test's temporary directory is private.
	dir, err := os.MkdirTemp("", "pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s user=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 8
max_client_conn = 200
logfile = %s
pidfile = %s
`, host, port, u.User.Username(), listen, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	cfg := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(cfg, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{cfg}
	if os.Geteuid() == 0 {
		args = []string{"-u", "nobody", cfg} // pgbouncer refuses to run as root
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", listen)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 100 {
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Fatalf("pgbouncer did not start: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.Host = addr
	return u.String()
}

// Two stores (two server replicas) behind pgbouncer in transaction mode
// with --db-pooler=transaction: 16 concurrent clients, every send
// succeeds, each is stored once, and every session's sequence numbers are
// gapless.
func TestPgbouncerTransactionModeTwoReplicas(t *testing.T) {
	via := startPgbouncer(t, storetest.PostgresDSN(t))
	var replicas []*store.Store
	for range 2 {
		s, err := store.OpenWith(context.Background(), via, nil, store.Options{Pooler: store.PoolerTransaction, MaxConns: 16})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		replicas = append(replicas, s)
	}
	ctx := smriti.WithUser(context.Background(), smriti.NewID())
	var sessions []smriti.ID
	for range 4 {
		sessions = append(sessions, storetest.Get(replicas[0].CreateSession(ctx, smriti.SessionCreate{Provider: "mock", Model: "mock"})).Must(t).ID)
	}
	const clients, each = 16, 25
	var acked, failed atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := replicas[c%2]
			for i := range each {
				_, err := s.AppendExchange(ctx, contract.Exchange{SessionID: sessions[(c+i)%4],
					User:      contract.TurnWrite{Content: fmt.Sprintf("q %d/%d", c, i), Tokens: 1},
					Assistant: contract.TurnWrite{Content: fmt.Sprintf("a %d/%d", c, i), Tokens: 1}})
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("send failed: %v", err) })
					continue
				}
				acked.Add(1)
			}
		}()
	}
	wg.Wait()
	stored := 0
	seen := map[string]bool{}
	for _, id := range sessions {
		turns := storetest.Get(replicas[1].Turns(ctx, id, contract.TurnQuery{})).Must(t)
		for i, tu := range turns {
			if tu.Seq != int64(i) {
				t.Fatalf("session %s: turn %d has seq %d (gap or duplicate)", id, i, tu.Seq)
			}
			if seen[tu.Content] {
				t.Errorf("stored twice: %s", tu.Content)
			}
			seen[tu.Content] = true
		}
		stored += len(turns)
	}
	t.Logf("pgbouncer transaction mode, 2 replicas, c=%d: acked %d, failed %d, stored exchanges %d", clients, acked.Load(), failed.Load(), stored/2)
	if failed.Load() != 0 || acked.Load() != clients*each || stored != 2*clients*each {
		t.Errorf("acked %d failed %d stored turns %d, want %d 0 %d", acked.Load(), failed.Load(), stored, clients*each, 2*clients*each)
	}
}
