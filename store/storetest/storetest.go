// Package storetest is the store's conformance suite: the same cases run
// against every engine (SQLite always; PostgreSQL when
// SMRITI_TEST_POSTGRES_URL is set, which CI always does).
package storetest

import (
	"context"
	"fmt"
	"testing"

	"smriti"
	"smriti/contract"
	"smriti/store"
)

// Opener returns a fresh, migrated store for one test.
type Opener func(t *testing.T) *store.Store

// Run runs every conformance case against stores from open.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s *store.Store)
	}{
		{"Spaces", testSpaces},
		{"SpacesInvisibleToOtherUsers", testSpacesInvisible},
		{"Sessions", testSessions},
		{"SessionSeeding", testSessionSeeding},
		{"AppendExchangeNumbersTurns", testAppendExchange},
		{"IdempotentExchangeWritesOnce", testIdempotency},
		{"ConcurrentSendsKeepSequence", testConcurrentSends},
		{"TurnQueries", testTurnQueries},
		{"CommitParentRules", testCommitParentRules},
		{"CreateRefusesAParentThatIsNoLongerTheHead", testParentMustBeHead},
		{"ConcurrentCommitsFormOneChain", testConcurrentCommits},
		{"CheckpointPaging", testCheckpointPaging},
		{"Ancestors", testAncestors},
		{"CheckpointHeadsAreTheIdentityOfTheCheckpoints", testCheckpointHeads},
		{"SessionHeadIsTheSessionAndItsMainHead", testSessionHead},
		{"DeleteRefusedWithDependentsThenCascade", testDeleteCascade},
		{"VerifyDetectsTamperedRow", testVerify},
		{"Notes", testNotes},
		{"ForkNames", testForkNames},
		{"ConcurrentForksGetDistinctNames", testConcurrentForks},
		{"BranchDisposition", testDisposition},
		{"DeleteSpaceRemovesEverything", testDeleteSpace},
		{"CommonAncestor", testCommonAncestor},
		{"CommonAncestorSurvivesATamperedCycle", testCommonAncestorTamperedCycle},
		{"ReachableCheckpoints", testReachable},
		{"SpaceTree", testSpaceTree},
		{"Mounts", testMounts},
		{"KeyDigestAndRetention", testKeyDigestAndRetention},
		{"ClaimsLifecycle", testClaimsLifecycle},
		{"ClaimsValidation", testClaimsValidation},
		{"ClaimCollisions", testClaimCollisions},
		{"SpaceState", testSpaceState},
		{"SpaceMetrics", testSpaceMetrics},
		{"SpaceEvents", testSpaceEvents},
		{"ItemsAcrossCommits", testItemsAcrossCommits},
		{"ItemHistory", testItemHistory},
		{"ItemsBackfill", testItemsBackfill},
		{"ItemRefs", testItemRefs},
	}
	cases = append(cases, portabilityCases...)
	cases = append(cases, rebaseCases...)
	cases = append(cases, accountCases...)
	cases = append(cases, readyCases...)
	cases = append(cases, spaceLogCases...)
	cases = append(cases, spaceNameCases...)
	cases = append(cases, leaseCases...)
	cases = append(cases, idempotencyCases...)
	cases = append(cases, importOrderCases...)
	cases = append(cases, receiptCases...)
	cases = append(cases, proposalCases...)
	cases = append(cases, purgeCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t))
		})
	}
}

// userCtx gives each case its own user, so cases sharing a database never
// see each other's rows.
func userCtx() context.Context {
	return smriti.WithUser(context.Background(), smriti.NewID())
}

// result carries a value and error so calls read Get(f()).Must(t).
// Result is a value and the error that came with it, so a test can take
// both from a call in one expression: Get(s.Space(ctx, id)).Must(t).
type Result[T any] struct {
	v   T
	err error
}

// Get pairs a call's value and error.
func Get[T any](v T, err error) Result[T] { return Result[T]{v, err} }

// Must returns the value, or stops the test when there was an error.
func (r Result[T]) Must(t testing.TB) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("unexpected error: %v", r.err)
	}
	return r.v
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := smriti.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func newSpace(t *testing.T, ctx context.Context, s *store.Store) *smriti.Space {
	t.Helper()
	for n := 1; ; n++ {
		name := "Australia Trip"
		if n > 1 {
			name = fmt.Sprintf("Australia Trip (%d)", n)
		}
		sp, err := s.CreateSpace(ctx, smriti.SpaceCreate{Name: name, Description: "2026"})
		if smriti.ErrorCode(err) == smriti.ECONFLICT {
			continue // space names are unique per owner
		}
		return Get(sp, err).Must(t)
	}
}

func newSession(t *testing.T, ctx context.Context, s *store.Store, space *smriti.Space) *smriti.Session {
	t.Helper()
	return Get(s.CreateSession(ctx, smriti.SessionCreate{SpaceID: &space.ID, Provider: "mock", Model: "m"})).Must(t)
}

func commit(t *testing.T, ctx context.Context, s *store.Store, space *smriti.Space, se *smriti.Session, msg string, decisions ...string) *smriti.Checkpoint {
	t.Helper()
	return Get(s.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: space.ID, SessionID: se.ID,
		Content: smriti.Content{Message: msg, Summary: "summary of " + msg, Decisions: decisions}})).Must(t)
}

func send(t *testing.T, ctx context.Context, s *store.Store, se *smriti.Session, msg string) *contract.ExchangeResult {
	t.Helper()
	return Get(s.AppendExchange(ctx, contract.Exchange{SessionID: se.ID,
		User:      contract.TurnWrite{Content: msg, Provider: "mock", Model: "m"},
		Assistant: contract.TurnWrite{Content: "reply to " + msg, Provider: "mock", Model: "m"}})).Must(t)
}
