package secrets

import (
	"testing"
	"time"
)

// TestWarmBuildsTheRuleSet reports what building the rule set costs (the
// first Find waits on it unless Warm ran before); it asserts that Warm
// leaves the rule set built, not a time.
func TestWarmBuildsTheRuleSet(t *testing.T) {
	start := time.Now()
	Warm()
	t.Logf("rule set built in %v (%d rules)", time.Since(start), len(scanner().rules))
	if len(scanner().rules) < 150 {
		t.Fatalf("%d rules; gitleaks' default set and ours are over 150", len(scanner().rules))
	}
}
