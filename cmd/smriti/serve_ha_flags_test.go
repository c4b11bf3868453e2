package main

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"smriti/store"
)

func TestAcquireTimeoutFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, store.DefaultAcquireTimeout},
		{[]string{"--db-acquire-timeout=750ms"}, 750 * time.Millisecond},
		{[]string{"--db-acquire-timeout=-1s"}, -time.Second},
	} {
		var o store.Options
		cmd := &cobra.Command{Use: "serve"}
		addAvailabilityFlags(cmd, &o)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		if o.AcquireTimeout != c.want {
			t.Fatalf("%v: acquire timeout %v, want %v", c.args, o.AcquireTimeout, c.want)
		}
	}
}
