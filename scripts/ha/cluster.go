package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// node is one PostgreSQL server of a throwaway cluster, run from the
// Debian package's binaries as scripts/pg.sh runs them.
type node struct {
	name string
	dir  string // holds data/, server.log and the socket
	port int
}

func (n *node) data() string { return filepath.Join(n.dir, "data") }

// url is the node's connection URL.
func (n *node) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", n.port)
}

// bindir is the newest installed PostgreSQL's.
func bindir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(dirs) == 0 {
		return "", errors.New("PostgreSQL is not installed (apt-get install -y postgresql)")
	}
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a < b
	})
	return dirs[len(dirs)-1], nil
}

// pg runs a PostgreSQL program, as the postgres user when run as root
// (PostgreSQL refuses to run as root).
func pg(prog string, args ...string) error {
	bin, err := bindir()
	if err != nil {
		return err
	}
	path := filepath.Join(bin, prog)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func newNode(root, name string) (*node, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &node{name: name, dir: filepath.Join(root, name), port: port}
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "postgres:postgres", n.dir).Run(); err != nil {
			return nil, fmt.Errorf("chown %s: %w", n.dir, err)
		}
	}
	return n, nil
}

// primary makes a new cluster ready to stream to standbys.
func primary(root string, fsync bool) (*node, error) {
	n, err := newNode(root, "primary")
	if err != nil {
		return nil, err
	}
	if err := pg("initdb", "-D", n.data(), "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		return nil, err
	}
	conf := "\nwal_level = replica\nmax_wal_senders = 10\nmax_connections = 300\nhot_standby = on\n" +
		"wal_keep_size = '256MB'\nsynchronous_commit = on\n" +
		// The load's statement counts per request.
		"shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track_utility = on\n"
	if !fsync {
		conf += "fsync = off\n"
	}
	if err := appendFile(filepath.Join(n.data(), "postgresql.conf"), conf); err != nil {
		return nil, err
	}
	return n, n.start()
}

// standby copies the primary with pg_basebackup and starts streaming from
// it as application_name name.
func standby(root string, from *node, name string) (*node, error) {
	n, err := newNode(root, name)
	if err != nil {
		return nil, err
	}
	if err := pg("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(from.port), "-U", "postgres",
		"-D", n.data(), "-X", "stream", "-R", "--no-sync"); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("\nprimary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'\n", from.port, name)
	if err := appendFile(filepath.Join(n.data(), "postgresql.auto.conf"), conf); err != nil {
		return nil, err
	}
	return n, n.start()
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (n *node) start() error {
	return pg("pg_ctl", "-D", n.data(), "-l", filepath.Join(n.dir, "server.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-k %s -c listen_addresses=127.0.0.1 -p %d", n.dir, n.port), "start")
}

// stop stops the node: mode fast (clean) or immediate (as a crash).
func (n *node) stop(mode string) error {
	if _, err := os.Stat(filepath.Join(n.data(), "postmaster.pid")); err != nil {
		return nil
	}
	return pg("pg_ctl", "-D", n.data(), "-m", mode, "-w", "stop")
}

func (n *node) promote() error { return pg("pg_ctl", "-D", n.data(), "-w", "promote") }

// db opens a small pool on the node.
func (n *node) db() (*sql.DB, error) {
	db, err := sql.Open("pgx", n.url())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	return db, nil
}

// makeSync names the standby synchronous on the primary and waits until it
// streams as such.
func makeSync(p *node, name string) error {
	db, err := p.db()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`ALTER SYSTEM SET synchronous_standby_names = '%s'`, name)); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `SELECT pg_reload_conf()`); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var state string
		err := db.QueryRowContext(ctx, `SELECT sync_state FROM pg_stat_replication WHERE application_name = $1`, name).Scan(&state)
		if err == nil && state == "sync" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("standby %s is not synchronous (state %q, %v)", name, state, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
