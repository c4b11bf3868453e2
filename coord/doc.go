// Package coord holds how agents coordinate in a Space: claims (advisory
// declarations of who works on what), the worktrees opened for them, the
// ready queue of unblocked unclaimed tasks, the state brief an agent reads
// before working, and the space's coordination metrics. It holds the types,
// their rules and the service and store interfaces; app runs the use cases
// and the store keeps the rows.
//
// It imports the domain (smriti) only.
package coord
