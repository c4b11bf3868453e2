// Command ha runs Smriti's high-availability checks against throwaway
// PostgreSQL clusters made from the Debian package (as scripts/pg.sh does)
// and `smriti serve` processes of a freshly built binary:
//
//	go run ./scripts/ha faults   # promote, SyncRep, stop 10 s; exits 1 on a violation
//	go run ./scripts/ha load     # 1 vs 3 replicas, lock waits, checkpoint commits
//
// scripts/ha-faults.sh and scripts/ha-load.sh wrap them.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the smriti binary (default: build ./cmd/smriti)")
	keep := flag.Bool("keep", false, "keep the clusters' directories and logs")
	var lo loadOptions
	flag.IntVar(&lo.c, "c", 16, "load: concurrent clients")
	flag.IntVar(&lo.spaces, "spaces", 16, "load: spaces (one session each) the clients spread over")
	flag.IntVar(&lo.rounds, "rounds", 3, "load: alternations of 1 and 3 replicas")
	flag.DurationVar(&lo.each, "each", 6*time.Second, "load: length of one measurement")
	flag.BoolVar(&lo.fsync, "fsync", true, "load: PostgreSQL with fsync on (the fault tests always run without)")
	flag.IntVar(&serverGOMAXPROCS, "gomaxprocs", 0, "GOMAXPROCS of the smriti replicas (default: with -cpu-quota the quota's CPUs rounded up, as on a machine of that size; else the Go runtime's)")
	flag.StringVar(&lo.what, "what", "send,commit", "load: what to measure, send and/or commit (comma-separated)")
	flag.StringVar(&lo.old, "old-bin", "", "load: a second smriti binary (an older build) measured beside -bin in every round, alternated, old first")
	flag.StringVar(&lo.cpuQuota, "cpu-quota", "", "load: confine each replica to this share of one CPU with a cgroup (v2 cpu.max, else v1 cfs quota), e.g. 15%; root only")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: ha [flags] faults|load")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || (flag.Arg(0) != "faults" && flag.Arg(0) != "load") {
		flag.Usage()
		os.Exit(2)
	}
	root, err := os.MkdirTemp("", "smriti-ha-")
	if err != nil {
		fail(err)
	}
	// The postgres user runs the clusters inside it.
	os.Chmod(root, 0o755)
	if *bin == "" {
		*bin = filepath.Join(root, "smriti")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/smriti").CombinedOutput(); err != nil {
			fail(fmt.Errorf("build: %v\n%s", err, out))
		}
	}
	start := time.Now()
	switch flag.Arg(0) {
	case "faults":
		err = runFaults(*bin, root)
	case "load":
		err = runLoad(*bin, root, lo)
	}
	fmt.Printf("%s took %.0f s\n", flag.Arg(0), time.Since(start).Seconds())
	if err != nil || *keep {
		fmt.Println("logs kept in", root)
	} else {
		os.RemoveAll(root)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ha:", err)
	os.Exit(1)
}

// runFaults runs every fault scenario, each on its own cluster, and
// reports every failure.
func runFaults(bin, root string) error {
	var failed []error
	for _, f := range []func(string, string) error{faultPromote, faultSyncRep, faultStop} {
		if err := f(bin, root); err != nil {
			fmt.Println("FAIL", err)
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of 3 fault scenarios failed", len(failed))
	}
	fmt.Println("all 3 fault scenarios passed")
	return nil
}
