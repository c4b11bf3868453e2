package main

import (
	"github.com/spf13/cobra"

	"smriti/store"
)

// addAvailabilityFlags adds the PostgreSQL flags of a server that rides out
// a failover: the bound on a wait for a pooled connection.
func addAvailabilityFlags(cmd *cobra.Command, o *store.Options) {
	cmd.Flags().DurationVar(&o.AcquireTimeout, "db-acquire-timeout", store.DefaultAcquireTimeout,
		"PostgreSQL: longest a write waits for a free pooled connection before it gets 503 with Retry-After (negative: no bound)")
}
