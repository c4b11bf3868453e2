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
// server on 127.0.0.1 wired as `smriti serve` wires it, one session whose
// history is past the mock model's window, and sends posted over HTTP by 16
// workers. SMRITI_BENCH_DB names a PostgreSQL URL to run on instead of a
// SQLite file. The sub-benchmarks are the context modes: FRESH (no space),
// HEAD on a space whose head checkpoint holds 1 to 3,000 items, MOUNTED and
// FORKED on a 300-item checkpoint. For a profile of the send path:
//
//	go test -run '^$' -bench 'SendParallel/HEAD300' -benchtime 3000x -cpuprofile cpu.out ./httpapi/
func BenchmarkSendParallel(b *testing.B) {
	b.Run("FRESH", func(b *testing.B) { benchSend(b, "fresh", 0) })
	for _, n := range []int{1, 30, 300, 3000} {
		b.Run(fmt.Sprintf("HEAD%d", n), func(b *testing.B) { benchSend(b, "head", n) })
	}
	b.Run("MOUNTED300", func(b *testing.B) { benchSend(b, "mounted", 300) })
	b.Run("FORKED300", func(b *testing.B) { benchSend(b, "forked", 300) })
}

// stateContent is a checkpoint of n items: decisions, assumptions, tasks
// and open questions in turn, each a short sentence.
func stateContent(n int) smriti.Content {
	c := smriti.Content{Message: fmt.Sprintf("state of %d items", n), Summary: "where the work stands"}
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("item %d: keep the release notes short and link the issue", i)
		switch i % 4 {
		case 0:
			c.Decisions = append(c.Decisions, text)
		case 1:
			c.Assumptions = append(c.Assumptions, text)
		case 2:
			c.Tasks = append(c.Tasks, smriti.Task{Text: text})
		default:
			c.OpenQuestions = append(c.OpenQuestions, text)
		}
	}
	return c
}

func benchSend(b *testing.B, mode string, items int) {
	ctx := context.Background()
	dsn := os.Getenv("SMRITI_BENCH_DB")
	if dsn == "" {
		dsn = filepath.Join(b.TempDir(), "bench.db")
	}
	st, err := store.Open(ctx, dsn, nil)
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
	se := stateSession(b, st, mode, items)
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

// stateSession is the session a send benchmark posts to: without a space
// (fresh), attached to a space whose head checkpoint holds items (head),
// mounted on that checkpoint (mounted) or forked from it (forked).
func stateSession(b *testing.B, st *store.Store, mode string, items int) *smriti.Session {
	ctx := context.Background()
	create := func(space *smriti.ID) *smriti.Session {
		se, err := st.CreateSession(ctx, smriti.SessionCreate{SpaceID: space, Title: "load", Provider: "mock", Model: "mock"})
		if err != nil {
			b.Fatal(err)
		}
		return se
	}
	if mode == "fresh" {
		return create(nil)
	}
	sp, err := st.CreateSpace(ctx, smriti.SpaceCreate{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	cp, err := st.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: sp.ID, Content: stateContent(items)})
	if err != nil {
		b.Fatal(err)
	}
	switch mode {
	case "mounted":
		se := create(&sp.ID)
		if _, err := st.SetMount(ctx, se.ID, &smriti.Mount{CheckpointID: cp.ID, BaseSeq: -1}); err != nil {
			b.Fatal(err)
		}
		return se
	case "forked":
		se, err := st.ForkSession(ctx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: cp.ID, Provider: "mock", Model: "mock"})
		if err != nil {
			b.Fatal(err)
		}
		return se
	}
	return create(&sp.ID)
}
