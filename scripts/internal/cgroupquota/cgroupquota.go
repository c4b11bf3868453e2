// Package cgroupquota confines processes to a share of one CPU with a
// cgroup each, for the load scripts that measure `smriti serve` replicas as
// if each ran on a small machine of its own (scripts/ha and scripts/load).
// It needs root; every group it makes is removed by Remove.
package cgroupquota

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Quota confines each replica to a share of one CPU with a cgroup of its
// own, so that, as on machines of their own, a replica's CPU is what limits
// it and not the machine's: on cgroup v2 (cpu.max) where the cpu controller
// is enabled, else on cgroup v1's cpu controller (cpu.cfs_quota_us).
type Quota struct {
	percent float64 // of one CPU; 0: no quota
	version string  // "v2 <dir>" or "v1 <dir>", as reported
	parent  string  // the directory the replicas' groups are made in
	groups  []string
}

const cfsPeriod = 100000 // µs

// ParsePercent reads "15%" or "15" (percent of one CPU); "" is no quota.
func ParsePercent(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v <= 0 || v > 100*64 {
		return 0, fmt.Errorf("-cpu-quota %q: want a percentage of one CPU such as 15%%", s)
	}
	return v, nil
}

// New finds a cgroup hierarchy with the cpu controller: cgroup v2
// first (the unified mount, or /sys/fs/cgroup itself when it is cgroup2),
// then v1.
func New(percent float64) (*Quota, error) {
	q := &Quota{percent: percent}
	if percent == 0 {
		return q, nil
	}
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		ctl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !hasWord(string(ctl), "cpu") {
			continue
		}
		// A v2 group's children get the cpu controller only when their
		// parent hands it down: the root to the replicas' parent, the
		// parent to each replica's group.
		sub, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control"))
		if !hasWord(string(sub), "cpu") {
			if os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu"), 0) != nil {
				continue
			}
		}
		parent := filepath.Join(root, fmt.Sprintf("smriti-quota-%d", os.Getpid()))
		if err := os.Mkdir(parent, 0o755); err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+cpu"), 0); err != nil {
			os.Remove(parent)
			continue
		}
		q.version, q.parent = "v2 "+parent, parent
		return q, q.weigh(parent)
	}
	for _, root := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
		if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err != nil {
			continue
		}
		parent := filepath.Join(root, fmt.Sprintf("smriti-quota-%d", os.Getpid()))
		if err := os.Mkdir(parent, 0o755); err != nil {
			return nil, fmt.Errorf("-cpu-quota: %w (root is needed to make cgroups)", err)
		}
		q.version, q.parent = "v1 "+parent, parent
		return q, q.weigh(parent)
	}
	return nil, errors.New("-cpu-quota: no cgroup hierarchy with the cpu controller (v2 cpu.max or v1 cpu.cfs_quota_us)")
}

// Procs is the GOMAXPROCS of a process held to the quota, as on a machine
// of that size: the quota's CPUs rounded up; 0 without a quota (the Go
// runtime's default). Go's own default under a quota is at least 2, and
// under a cgroup v1 quota the machine's CPUs, which spends a small quota
// on idle Ps waking up.
func (q *Quota) Procs() int {
	if q == nil || q.percent == 0 {
		return 0
	}
	return int(math.Ceil(q.percent / 100))
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// Confine moves pid into a new group of its own with the quota.
func (q *Quota) Confine(pid int) error {
	if q == nil || q.percent == 0 {
		return nil
	}
	return q.group(fmt.Sprintf("replica-%d", pid), true, pid)
}

// Favour moves pids (PostgreSQL's processes, the load's own) into a group
// without a quota, at the highest weight, so that other work on a shared
// machine does not take the CPU the measurement needs: only the replicas'
// quota bounds it. Processes they start later (PostgreSQL's backends) are
// born into the group.
func (q *Quota) Favour(name string, pids ...int) error {
	if q == nil || q.percent == 0 {
		return nil
	}
	return q.group(name, false, pids...)
}

func (q *Quota) group(name string, limit bool, pids ...int) error {
	dir := filepath.Join(q.parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	q.groups = append(q.groups, dir)
	write := func(file, v string) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil {
			return fmt.Errorf("cgroup %s: %w", file, err)
		}
		return nil
	}
	v2 := strings.HasPrefix(q.version, "v2")
	if err := q.weigh(dir); err != nil {
		return err
	}
	if limit {
		quota := int(q.percent * cfsPeriod / 100)
		if v2 {
			if err := write("cpu.max", fmt.Sprintf("%d %d", quota, cfsPeriod)); err != nil {
				return err
			}
		} else {
			if err := write("cpu.cfs_period_us", strconv.Itoa(cfsPeriod)); err != nil {
				return err
			}
			if err := write("cpu.cfs_quota_us", strconv.Itoa(quota)); err != nil {
				return err
			}
		}
	}
	for _, pid := range pids {
		// Every thread of the process moves with it. A process that ended
		// meanwhile (a PostgreSQL backend) is no error.
		if err := write("cgroup.procs", strconv.Itoa(pid)); err != nil && pid == pids[0] {
			return err
		}
	}
	return nil
}

// weigh gives a group the highest CPU weight: against the machine's other
// processes, a quota-bound replica gets all of its quota and PostgreSQL
// what it asks for.
func (q *Quota) weigh(dir string) error {
	file, v := "cpu.shares", "262144"
	if strings.HasPrefix(q.version, "v2") {
		file, v = "cpu.weight", "10000"
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil {
		return fmt.Errorf("cgroup %s: %w", file, err)
	}
	return nil
}

// Throttled sums, over the replicas' groups, the periods the quota held a
// group back and the time it did (cpu.stat: nr_throttled and
// throttled_time ns on v1, throttled_usec on v2).
func (q *Quota) Throttled() (periods int64, ms float64) {
	if q == nil {
		return 0, 0
	}
	for _, g := range q.groups {
		data, err := os.ReadFile(filepath.Join(g, "cpu.stat"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			k, v, _ := strings.Cut(line, " ")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "nr_throttled":
				periods += n
			case "throttled_time":
				ms += float64(n) / 1e6
			case "throttled_usec":
				ms += float64(n) / 1e3
			}
		}
	}
	return periods, ms
}

func (q *Quota) String() string {
	if q == nil || q.percent == 0 {
		return "no CPU quota"
	}
	return fmt.Sprintf("CPU quota %g%% of one CPU per replica (cgroup %s; PostgreSQL and the load at the highest weight, no quota)", q.percent, q.version)
}

// Remove moves the processes still in the groups back to the root group and
// removes the groups (a group with a process in it cannot be removed). A
// process may join a group meanwhile (PostgreSQL starts a backend) or be
// on its way out and not move (a backend whose client left): each group is
// emptied and removed again until it is gone, for at most five seconds.
func (q *Quota) Remove() {
	if q == nil || q.parent == "" {
		return
	}
	root := filepath.Dir(q.parent)
	deadline := time.Now().Add(5 * time.Second)
	for i := len(q.groups) - 1; i >= 0; i-- {
		g := q.groups[i]
		for {
			if data, err := os.ReadFile(filepath.Join(g, "cgroup.procs")); err == nil {
				for _, pid := range strings.Fields(string(data)) {
					os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(pid), 0)
				}
			}
			err := os.Remove(g)
			if err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	os.Remove(q.parent)
}
