package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"smriti"
	"smriti/app"
	"smriti/httpapi"
	"smriti/internal/estimate"
	"smriti/provider"
	"smriti/store"
)

// Benchmarks measure server time: requests go straight to the handler
// (no network), on a real SQLite file, with the offline mock provider.
//
//	go test -run '^$' -bench . -benchtime 2000x ./httpapi/

type benchEnv struct {
	st      *store.Store
	h       http.Handler
	space   *smriti.Space
	session *smriti.Session
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cfg, _ := provider.Load(provider.LoadOptions{})
	h := httpapi.New(httpapi.Config{Backend: st, App: app.New(app.Config{Store: st, Providers: provider.New(cfg)})})
	ctx := context.Background()
	sp, err := st.CreateSpace(ctx, smriti.SpaceCreate{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	se, err := st.CreateSession(ctx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "mock"})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{st: st, h: h, space: sp, session: se}
}

func (e *benchEnv) checkpoints(b *testing.B, n int) []*smriti.Checkpoint {
	b.Helper()
	var out []*smriti.Checkpoint
	for i := 0; i < n; i++ {
		c, err := e.st.CommitCheckpoint(context.Background(), smriti.CheckpointCommit{SpaceID: e.space.ID, SessionID: e.session.ID,
			Content: smriti.Content{Message: fmt.Sprintf("checkpoint %d", i), Summary: "a summary of the state so far",
				Decisions: []string{"decision one", "decision two"}, Tasks: []smriti.Task{{Text: "a task"}}}})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// bulkTurns appends n turns to the session with plain SQL in large batches
// (the write path itself is measured by BenchmarkSend), with the running token totals a send writes.
func (e *benchEnv) bulkTurns(b *testing.B, n int) {
	b.Helper()
	e.bulkTurnsOf(b, n, func(j int) (string, string) {
		if j%2 == 1 {
			return "assistant", fmt.Sprintf("assistant reply number %d with a few more words", j)
		}
		return "user", fmt.Sprintf("user message number %d about the plan", j)
	})
}

// bulkTurnsOf is bulkTurns with the role and content of turn j given.
func (e *benchEnv) bulkTurnsOf(b *testing.B, n int, turn func(j int) (role, content string)) {
	b.Helper()
	db := e.st.DB()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	var pos int64
	if err := tx.QueryRow(`UPDATE store_log SET position = position + ? WHERE id = 1 RETURNING position`, n).Scan(&pos); err != nil {
		b.Fatal(err)
	}
	start := pos - int64(n)
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	const batch = 500
	total := 0
	for i := 0; i < n; i += batch {
		var sb strings.Builder
		var args []any
		sb.WriteString(`INSERT INTO turns (id, session_id, space_id, role, content, provider, model, sequence_number, log_pos, tokens, token_total, metadata, created_at) VALUES `)
		for j := i; j < min(n, i+batch); j++ {
			if j > i {
				sb.WriteString(",")
			}
			sb.WriteString("(?, ?, ?, ?, ?, 'mock', 'mock', ?, ?, ?, ?, '{}', ?)")
			role, content := turn(j)
			tokens := estimate.Tokens(content)
			total += tokens
			args = append(args, smriti.NewID(), e.session.ID, e.space.ID, role, content, j, start+int64(j)+1, tokens, total, now)
		}
		if _, err := tx.Exec(sb.String(), args...); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Exec(`UPDATE sessions SET last_seq = ?, token_total = ? WHERE id = ?`, n-1, total, e.session.ID); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func (e *benchEnv) do(b *testing.B, method, path, body string, want int) {
	e.doBody(b, method, path, body, want)
}

// doBody is do returning the answer's body.
func (e *benchEnv) doBody(b *testing.B, method, path, body string, want int) []byte {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

// timed runs fn b.N times and reports the median in milliseconds.
func timed(b *testing.B, fn func(i int)) {
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		fn(i)
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkCommit(b *testing.B) {
	e := newBenchEnv(b)
	body := fmt.Sprintf(`{"repo_id": %q, "session_id": %q, "message": "bench", "summary": "s", "decisions": ["a", "b"], "tasks": ["t"]}`,
		e.space.ID, e.session.ID)
	timed(b, func(int) { e.do(b, "POST", "/api/v4/chat/commit", body, 201) })
}

func BenchmarkGetCheckpoint(b *testing.B) {
	e := newBenchEnv(b)
	cps := e.checkpoints(b, 100)
	timed(b, func(i int) { e.do(b, "GET", "/api/v2/commits/"+cps[i%len(cps)].ID.String(), "", 200) })
}

func BenchmarkListCheckpoints(b *testing.B) {
	e := newBenchEnv(b)
	e.checkpoints(b, 1000)
	timed(b, func(int) { e.do(b, "GET", "/api/v2/repos/"+e.space.ID.String()+"/commits?limit=50", "", 200) })
}

// BenchmarkSend is a mock send in a space of 1,000 checkpoints, in sessions
// of 10, 1,500, 10,000 and 100,000 turns (all after the newest checkpoint, so all
// are allowed history and the token budget decides what is read).
func BenchmarkSend(b *testing.B) {
	for _, turns := range []int{10, 1500, 10000, 100000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			e := newBenchEnv(b)
			e.checkpoints(b, 1000)
			e.bulkTurns(b, turns)
			body := fmt.Sprintf(`{"session_id": %q, "message": "what next?", "provider": "mock", "model": "mock"}`, e.session.ID)
			timed(b, func(int) { e.do(b, "POST", "/api/v4/chat/send", body, 200) })
		})
	}
}

// BenchmarkDraftUnconsumed400 drafts a session whose 400 turns no
// checkpoint accounts for, with the mock as the background model (an
// 8,192-token window): the range is read in chunks, each onto the state the
// previous chunks left. With a decision in every user turn (200) the state
// itself soon fills most of the window, so late chunks hold a turn or two;
// with one in every tenth (20) the chunks stay at the per-chunk turn cap.
// Reports the chunks and the decisions recorded.
func BenchmarkDraftUnconsumed400(b *testing.B) {
	for _, every := range []int{1, 10} {
		b.Run(fmt.Sprintf("decisions=%d", 200/every), func(b *testing.B) {
			e := newBenchEnv(b)
			e.bulkTurnsOf(b, 400, func(j int) (string, string) {
				k := j / 2
				if j%2 == 1 {
					return "assistant", "Noted, that works for the rollout plan we discussed earlier today."
				}
				if k%every != 0 {
					return "user", "Let me think about how the rollout should look for the customers next week."
				}
				// A distinct name per decision: with a number instead, the
				// mock would read each as a new value of the last one.
				return "user", fmt.Sprintf("We decided to ship the %c%c%c service behind its own feature flag.", 'a'+k%26, 'a'+k/26%26, 'a'+k/676%26)
			})
			body := fmt.Sprintf(`{"session_id": %q}`, e.session.ID)
			var out struct {
				Chunks    int      `json:"chunks"`
				Decisions []string `json:"decisions"`
			}
			timed(b, func(int) {
				if err := json.Unmarshal(e.doBody(b, "POST", "/api/v5/checkpoint/draft", body, 200), &out); err != nil {
					b.Fatal(err)
				}
			})
			if len(out.Decisions) != 200/every {
				b.Fatalf("%d decisions recorded, want %d", len(out.Decisions), 200/every)
			}
			b.ReportMetric(float64(out.Chunks), "chunks")
			b.ReportMetric(float64(len(out.Decisions)), "decisions")
		})
	}
}
