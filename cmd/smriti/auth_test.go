package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"smriti/client"
	"smriti/wire"
	"strings"
	"sync"
	"testing"
	"time"

	"smriti"
)

// TestAttackNonLoopbackStartNeedsAuth: on every interface `smriti serve
// --auth` starts, answers 401 without a token, and serves a token made by
// `smriti token create` — the path an operator follows.
func TestAttackNonLoopbackStartNeedsAuth(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "smriti.db")
	env := append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENROUTER_API_KEY=", "SMRITI_GENERIC_API_URL=", "SMRITI_AUTH=", "SMRITI_DATABASE_URL="+db)

	add := exec.Command(bin, "user", "add", "ops")
	add.Env, add.Stdin = env, strings.NewReader("a long enough password\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v %s", err, out)
	}
	mk := exec.Command(bin, "token", "create", "--user", "ops", "--scope", "write", "--json")
	mk.Env = env
	out, err := mk.Output()
	if err != nil {
		t.Fatalf("token create: %v %s", err, out)
	}
	var made wire.TokenCreated
	if err := json.Unmarshal(out, &made); err != nil || !strings.HasPrefix(made.Secret, "smriti_") {
		t.Fatalf("token create --json = %s (%v)", out, err)
	}

	port := freeAddr(t)[len("127.0.0.1:"):]
	cmd := exec.Command(bin, "serve", "--auth", "--addr", "0.0.0.0:"+port, "--db", db, "--config", filepath.Join(dir, "none.yaml"), "--env-file", "")
	cmd.Env = env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logs.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + net.JoinHostPort("127.0.0.1", port)
	t.Setenv("SMRITI_TOKEN", "")
	anon := client.NewClient(url)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := anon.Health(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("server with --auth on 0.0.0.0 did not come up: %v\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := anon.Do(context.Background(), "GET", "/api/v2/repos", nil, nil)
	if resp == nil || resp.StatusCode != http.StatusUnauthorized || smriti.ErrorCode(err) != smriti.EUNAUTHORIZED {
		t.Fatalf("no token: %v %v", resp, err)
	}
	// The Go client (hence the CLI and `smriti mcp`) sends SMRITI_TOKEN.
	t.Setenv("SMRITI_TOKEN", made.Secret)
	c := client.NewClient(url)
	sp, err := c.CreateSpace(context.Background(), wire.SpaceCreateRequest{Name: new("shared"), Description: new("")})
	if err != nil || sp.UserID != made.Token.UserID {
		t.Fatalf("create with the token = %+v, %v", sp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "auth=true") || strings.Contains(logs.String(), made.Secret) {
		t.Fatalf("serve log = %s", logs.String())
	}
}
