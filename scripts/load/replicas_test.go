package main

import (
	"slices"
	"strings"
	"testing"
)

func TestReplicaOptions(t *testing.T) {
	pg := "postgres://postgres@127.0.0.1:5432/postgres"
	for _, tc := range []struct {
		name, replicas, conc, db, mode, quota string
		sessions                              int
		wantErr                               string
		wantCounts, wantConc                  []int
		wantSessions                          int
	}{
		{name: "single server keeps one session", conc: "1,16", wantConc: []int{1, 16}, wantSessions: 1},
		{name: "single server with sessions", conc: "1,16", sessions: 4, wantConc: []int{1, 16}, wantSessions: 4},
		{name: "quota needs replicas", conc: "1,16", quota: "15%", wantErr: "go with -replicas"},
		{name: "replicas refuse SQLite", replicas: "1,3", conc: "1,16", wantErr: "PostgreSQL"},
		{name: "replicas refuse commit mode", replicas: "1,3", conc: "1,16", db: pg, mode: "commit", wantErr: "-mode send"},
		{name: "replicas: c=16 and a session per client", replicas: "1,3", conc: "1,16", db: pg,
			wantCounts: []int{1, 3}, wantConc: []int{16}, wantSessions: 16},
		{name: "replicas with a shared session", replicas: "1, 3", conc: "8", db: pg, sessions: 1,
			wantCounts: []int{1, 3}, wantConc: []int{8}, wantSessions: 1},
		{name: "bad count", replicas: "1,x", conc: "16", db: pg, wantErr: "counts of 1 to 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options{db: tc.db, mode: "send", sessions: tc.sessions, cpuQuota: tc.quota}
			if tc.mode != "" {
				o.mode = tc.mode
			}
			for _, f := range strings.Split(tc.conc, ",") {
				var c int
				for _, r := range f {
					c = 10*c + int(r-'0')
				}
				o.conc = append(o.conc, c)
			}
			err := replicaOptions(&o, tc.replicas, tc.conc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(o.replicas, tc.wantCounts) || !slices.Equal(o.conc, tc.wantConc) || o.sessions != tc.wantSessions {
				t.Fatalf("replicas %v, c %v, sessions %d; want %v, %v, %d", o.replicas, o.conc, o.sessions, tc.wantCounts, tc.wantConc, tc.wantSessions)
			}
		})
	}
}
