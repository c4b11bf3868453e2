package store_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"smriti"
	"smriti/portability"
	"smriti/records"
	"smriti/search"
	"smriti/store"
	"smriti/store/storetest"
)

// vocabulary is a Zipf-distributed set of made-up words, so generated text
// has the shape of real text: a few very common words, a long tail of rare
// ones.
type vocabulary struct {
	words []string
	zipf  *rand.Zipf
}

func newVocabulary(r *rand.Rand, n int) *vocabulary {
	syll := []string{"ka", "ri", "to", "me", "su", "na", "lo", "pe", "vi", "da", "zu", "ho", "ge", "mi", "ra", "te"}
	v := &vocabulary{zipf: rand.NewZipf(r, 1.1, 4, uint64(n-1))}
	seen := map[string]bool{}
	for len(v.words) < n {
		var b strings.Builder
		for k := 0; k < 2+r.Intn(3); k++ {
			b.WriteString(syll[r.Intn(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	return v
}

func (v *vocabulary) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// writeSearchBundle writes a bundle of one space with nCheckpoints (a main
// chain with a side branch every 100) and nSessions sessions of turnsEach
// turns, every hash computed as the server would.
func writeSearchBundle(b *testing.B, path string, v *vocabulary, nCheckpoints, nSessions, turnsEach int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := portability.NewBundleWriter(f)
	if err != nil {
		b.Fatal(err)
	}
	space := smriti.NewID()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(w.Write(portability.BundleRecord{Type: portability.RecordSpace, Space: &portability.BundleSpace{ID: space, Name: "bench", Metadata: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}}))
	hashes := map[smriti.ID]string{}
	var head *smriti.ID
	for i := 0; i < nCheckpoints; i++ {
		branch := smriti.MainBranch
		if i%100 == 99 {
			branch = fmt.Sprint("side-", i)
		}
		c := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: space, ParentID: head, BranchName: branch, AuthorType: smriti.AuthorLLM,
			Content: smriti.Content{Message: v.sentence(6), Objective: v.sentence(12), Summary: v.sentence(40),
				Decisions: []string{v.sentence(10), v.sentence(10)}, Assumptions: []string{v.sentence(8)}, Tasks: []smriti.Task{{Text: v.sentence(6)}},
				OpenQuestions: []string{v.sentence(8)}, Entities: []string{v.sentence(2)}, Artifacts: []smriti.Artifact{}},
			ContextBlob: map[string]any{}, Metadata: map[string]any{}, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		ph := ""
		if head != nil {
			ph = hashes[*head]
		}
		c.Hash = c.ComputeHash(ph, "")
		hashes[c.ID] = c.Hash
		must(w.Write(portability.BundleRecord{Type: portability.RecordCheckpoint, Checkpoint: records.BundleCheckpointOf(c)}))
		if branch == smriti.MainBranch {
			id := c.ID
			head = &id
		}
	}
	turns := 0
	for s := 0; s < nSessions; s++ {
		se := portability.BundleSession{ID: smriti.NewID(), Title: v.sentence(4), BranchName: smriti.MainBranch, BranchDisposition: smriti.DispositionActive,
			Metadata: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
		must(w.Write(portability.BundleRecord{Type: portability.RecordSession, Session: &se}))
		for k := 0; k < turnsEach; k++ {
			role := smriti.RoleUser
			if k%2 == 1 {
				role = smriti.RoleAssistant
			}
			must(w.Write(portability.BundleRecord{Type: portability.RecordTurn, Turn: &portability.BundleTurn{ID: smriti.NewID(), SessionID: se.ID, Seq: int64(k),
				Role: role, Content: v.sentence(30 + k%40), Metadata: map[string]any{}, CreatedAt: t0}}))
			turns++
		}
	}
	must(w.Write(portability.BundleRecord{Type: portability.RecordEnd, End: &portability.BundleCounts{Checkpoints: nCheckpoints, Sessions: nSessions, Turns: turns}}))
	must(w.Close())
}

// BenchmarkSearch measures search over 10,000 checkpoints and 200,000 turns
// on SQLite. The data is generated as a bundle and loaded with ImportSpace,
// so it goes through the same write path and index triggers as any import.
// Each iteration is one search for two words of middling frequency; p50 and
// p95 are reported.
func BenchmarkSearch(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	v := newVocabulary(r, 20000)
	dir := b.TempDir()
	bundle := filepath.Join(dir, "seed.jsonl.gz")
	writeSearchBundle(b, bundle, v, 10000, 200, 1000)
	s, err := store.Open(context.Background(), filepath.Join(dir, "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	f, err := os.Open(bundle)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := portability.ImportSpace(ctx, s, f, false); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.Logf("seeded 10,000 checkpoints and 200,000 turns in %s", time.Since(start).Round(time.Millisecond))
	queries := make([]search.Query, 200)
	for i := range queries {
		// Words ranked 50–2,000: common enough to match, rare enough to mean something.
		queries[i] = search.Query{Text: v.words[50+r.Intn(1950)] + " " + v.words[50+r.Intn(1950)]}
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		t := time.Now()
		if _, err := s.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// writeChatGPTExport writes a synthetic ChatGPT conversations.json of about
// size bytes: conversations of 20 messages in a mapping tree.
func writeChatGPTExport(b *testing.B, path string, size int64, v *vocabulary) int {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	w.WriteString("[")
	n := 0
	var written int64
	for written < size {
		if n > 0 {
			w.WriteString(",")
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, `{"title":"Conversation %d — Zürich","create_time":1709285400.5,"current_node":"m19","mapping":{`, n)
		for k := 0; k < 20; k++ {
			parent := "null"
			if k > 0 {
				parent = fmt.Sprintf(`"m%d"`, k-1)
			}
			role := "user"
			if k%2 == 1 {
				role = "assistant"
			}
			if k > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `"m%d":{"id":"m%d","parent":%s,"children":["m%d"],"message":{"author":{"role":"%s"},"create_time":%d,"content":{"content_type":"text","parts":[%q]}}}`,
				k, k, parent, k+1, role, 1709285400+k, v.sentence(80)+" ☕ "+fmt.Sprint(n))
		}
		sb.WriteString("}}")
		m, _ := w.WriteString(sb.String())
		written += int64(m)
		n++
	}
	w.WriteString("]")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return n
}

// peakRSS is the process's high-water resident set (VmHWM), in MB.
// watchHeap samples the Go heap in use until the function it returns is
// called, which returns the largest figure seen.
func watchHeap() func() uint64 {
	runtime.GC()
	done, out := make(chan struct{}), make(chan uint64)
	go func() {
		var ms runtime.MemStats
		var most uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				out <- most
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				most = max(most, ms.HeapInuse)
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}

// processCPU is the CPU time the process has spent, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkImportLargeExport imports a synthetic 50 MB ChatGPT export and
// reports the process's peak RSS and the largest Go heap seen while
// importing. Run it with -benchtime=1x; SMRITI_IMPORT_MB changes the size
// (compare 5 and 50 to see that memory does not grow with the file).
func BenchmarkImportLargeExport(b *testing.B) {
	mb := int64(50)
	if v := os.Getenv("SMRITI_IMPORT_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	r := rand.New(rand.NewSource(2))
	v := newVocabulary(r, 20000)
	dir := b.TempDir()
	path := filepath.Join(dir, "conversations.json")
	convs := writeChatGPTExport(b, path, mb<<20, v)
	s, err := store.Open(context.Background(), filepath.Join(dir, "import.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: "import"})
		if err != nil {
			b.Fatal(err)
		}
		stop := watchHeap()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		im := &portability.TranscriptImporter{Store: s}
		res, err := im.Import(ctx, f, portability.TranscriptImport{SpaceID: sp.ID, Filename: "conversations.json"})
		f.Close()
		maxHeap := stop()
		if err != nil {
			b.Fatal(err)
		}
		if len(res) != convs || res[len(res)-1].Status != portability.ImportImported {
			b.Fatalf("imported %d of %d conversations", len(res), convs)
		}
		b.ReportMetric(float64(maxHeap)/(1<<20), "peak-heap-MB")
	}
	b.ReportMetric(peakRSS(), "peak-RSS-MB")
	b.ReportMetric(float64(mb), "file-MB")
	b.ReportMetric(float64(convs), "conversations")
}

// BenchmarkImportSpaceBundle imports a space of 1,000 checkpoints × 30
// items and 5,000 turns (a clone reads the same bundle) into SQLite and,
// when SMRITI_TEST_POSTGRES_URL is set, into PostgreSQL: checkpoints/s and
// the largest Go heap seen while importing. SMRITI_BENCH_CHECKPOINTS
// changes the size (turns stay 5 a checkpoint).
func BenchmarkImportSpaceBundle(b *testing.B) {
	path, n, _ := store.BenchBundle(b)
	ctx := context.Background()
	engines := []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"SQLite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "import.db") }},
		{"Postgres", func(b *testing.B) string { return storetest.PostgresDSN(b) }},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dsn := e.dsn(b)
				s, err := store.Open(ctx, dsn, nil)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				stop := watchHeap()
				start := time.Now()
				cpu := processCPU()
				counts := portability.ScanBundle(f)
				if counts == nil {
					b.Fatal("the scan could not count the bundle")
				}
				scanned, server := processCPU(), serverCPU(b, dsn)
				if _, _, err := portability.ImportScanned(ctx, s, f, counts, false); err != nil {
					b.Fatal(err)
				}
				// The scan is what a clone's server spends as the bundle
				// arrives; the import, what it spends after the transfer.
				b.ReportMetric((scanned-cpu).Seconds()*1e3/float64(n), "scan-cpu-ms/checkpoint")
				b.ReportMetric((processCPU()-scanned).Seconds()*1e3/float64(n), "import-cpu-ms/checkpoint")
				if server != nil {
					b.ReportMetric(server().Seconds()*1e3/float64(n), "pg-cpu-ms/checkpoint")
				}
				b.ReportMetric(float64(n)/time.Since(start).Seconds(), "checkpoints/s")
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
				f.Close()
				s.Close()
			}
		})
	}
}
