package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/app"
	"smriti/httpapi"
	"smriti/provider"
	"smriti/store"
	"smriti/tokenizer"
)

// BenchmarkCommitParallel is `scripts/load -mode commit` in one process: a
// real server on 127.0.0.1 wired as `smriti serve` wires it, one space and
// one session, and checkpoint commits of 10 decisions and a task posted
// over HTTP by 8 workers, each on the previous one. SMRITI_BENCH_DB names
// a PostgreSQL URL to run on instead of a SQLite file. For a profile of
// the commit path:
//
//	go test -run '^$' -bench CommitParallel -benchtime 4000x -cpuprofile cpu.out ./httpapi/
func BenchmarkCommitParallel(b *testing.B) {
	for _, items := range []int{10, 100} {
		b.Run(fmt.Sprintf("items=%d", items), func(b *testing.B) { benchCommitParallel(b, items) })
	}
}

func benchCommitParallel(b *testing.B, items int) {
	dsn := os.Getenv("SMRITI_BENCH_DB")
	if dsn == "" {
		dsn = filepath.Join(b.TempDir(), "bench.db")
	}
	st, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	pcfg, _ := provider.Load(provider.LoadOptions{})
	metrics := httpapi.NewMetrics()
	providers := provider.New(pcfg, provider.WithObserver(metrics.ObserveProviderCall))
	a := app.New(app.Config{Store: st, Providers: providers, Tokens: tokenizer.Counter{}, Now: st.Now})
	srv := httpapi.New(httpapi.Config{Backend: st, App: a, Metrics: metrics})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String()
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	ctx := context.Background()
	sp, err := st.CreateSpace(ctx, smriti.SpaceCreate{Name: "load"})
	if err != nil {
		b.Fatal(err)
	}
	se, err := st.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Title: "load", Provider: "mock", Model: "mock"})
	if err != nil {
		b.Fatal(err)
	}
	var ds []string
	for i := 0; i < items; i++ {
		ds = append(ds, fmt.Sprintf("Decision %d: service %d keeps its cache for %d minutes", i, i*7, i%60))
	}
	data, _ := json.Marshal(map[string]any{"repo_id": sp.ID, "session_id": se.ID, "message": "load",
		"summary": "the state of the load test so far", "decisions": ds, "tasks": []string{"Task 0: move the gateway 0 config"}})
	body := string(data)
	post := func() error {
		resp, err := cl.Post(url+"/api/v4/chat/commit", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 201 {
			return fmt.Errorf("commit: %d %s", resp.StatusCode, data)
		}
		return nil
	}
	for i := 0; i < 50; i++ {
		if err := post(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism(4) // 8 workers on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := post(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
