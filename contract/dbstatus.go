package contract

// DatabaseStatus is what a readiness check found out about the database.
type DatabaseStatus struct {
	// Reachable: the database answered within the check's deadline.
	Reachable bool
	// Writable: it is a primary (not in recovery), not read-only, and a
	// transaction that takes a transaction id committed within the deadline
	// (so a primary stuck waiting for a synchronous standby is not
	// writable).
	Writable bool
	// MigrationVersion is the newest migration applied (0 when unknown).
	MigrationVersion int64
	// Problem says why the database is not ready ("" when it is).
	Problem string
	// Pool statistics of the store's connections.
	OpenConns, InUseConns, IdleConns, MaxConns int
	// WaitCount is how many times a request waited for a free connection.
	WaitCount int64
}
