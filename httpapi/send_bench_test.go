package httpapi_test

import (
	"context"
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

// BenchmarkSendParallel is the load script's shape in one process: a real
// server on 127.0.0.1 wired as `smriti serve` wires it, one session without
// a space whose history is past the mock model's window, and sends posted
// over HTTP by 16 workers. SMRITI_BENCH_DB names a PostgreSQL URL to run
// on instead of a SQLite file. For a profile of the send path:
//
//	go test -run '^$' -bench SendParallel -benchtime 3000x -cpuprofile cpu.out ./httpapi/
func BenchmarkSendParallel(b *testing.B) {
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
	se, err := st.CreateSession(context.Background(), smriti.SessionCreate{Title: "load", Provider: "mock", Model: "mock"})
	if err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"session_id":%q,"provider":"mock","model":"mock","message":"hello there, what should we do next about the plan?"}`, se.ID)
	post := func() error {
		resp, err := cl.Post(url+"/api/v4/chat/send", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("send: %d %s", resp.StatusCode, data)
		}
		return nil
	}
	// 1,500 turns through the API, as the load script seeds them.
	for i := 0; i < 750; i++ {
		if err := post(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism(8) // 16 workers on 2 cores
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
