package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"smriti/client"
	"smriti/store/storetest"
	"smriti/wire"
)

// TestTwoServerProcessesShareOnePostgres runs two `smriti serve` processes
// on one PostgreSQL database, as replicas behind a load balancer, and sends
// 64 messages to one session through both at once: the turns come out
// numbered 0..127 with no gap, each reply right after its own question.
func TestTwoServerProcessesShareOnePostgres(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	bin := buildBinary(t)
	var clients []*client.Client
	for i := 0; i < 2; i++ {
		addr := freeAddr(t)
		cmd := startServer(t, bin, addr, dsn)
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		clients = append(clients, client.NewClient("http://"+addr))
	}
	ctx := context.Background()
	se, err := clients[0].CreateSession(ctx, nil, "", "mock", "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			msg := fmt.Sprintf("question %d", i)
			if _, err := clients[i%2].Send(ctx, wire.SendRequest{SessionID: ptr(se.ID.String()), Message: &msg, Provider: "mock"}, ""); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	turns, err := clients[1].AllTurns(ctx, se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 128 {
		t.Fatalf("turns = %d, want 128", len(turns))
	}
	for i, tr := range turns {
		if tr.SequenceNumber != int64(i) {
			t.Fatalf("turn %d has sequence %d", i, tr.SequenceNumber)
		}
		if i%2 == 1 && (turns[i-1].Role != "user" || tr.Role != "assistant" || !strings.Contains(tr.Content, turns[i-1].Content)) {
			t.Fatalf("reply %d %q does not follow its question %q", i, tr.Content, turns[i-1].Content)
		}
	}
}

// TestTwoReplicasMigrateAnEmptyPostgresAtOnce starts two `smriti serve`
// processes at the same moment on a database with no tables: the migration
// lock makes one wait for the other, and both come up and share the data.
func TestTwoReplicasMigrateAnEmptyPostgresAtOnce(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	bin := buildBinary(t)
	addrs := []string{freeAddr(t), freeAddr(t)}
	var wg sync.WaitGroup
	for _, addr := range addrs {
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			cmd := startServer(t, bin, addr, dsn)
			t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		}(addr)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	ctx := context.Background()
	sp, err := client.NewClient("http://"+addrs[0]).CreateSpace(ctx, wire.SpaceCreateRequest{Name: new("shared"), Description: new("")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := client.NewClient("http://"+addrs[1]).Space(ctx, sp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "shared" {
		t.Fatalf("second replica sees space %q, want %q", got.Name, "shared")
	}
}
