package portability

import (
	"smriti/internal/textutil"
	"smriti/receipt"
)

// problem says what is wrong with the record ("" when nothing is).
func receiptProblem(b *BundleReceipt) string {
	switch {
	case !receipt.ValidHost(b.Host):
		return "has host " + textutil.Truncate(b.Host, 32)
	case b.Status != receipt.Complete && b.Status != receipt.Incomplete:
		return "has status " + textutil.Truncate(b.Status, 32)
	case b.AgentSession == "" || b.Event == "" || b.Tokens < 0 || b.CreatedAt.IsZero():
		return "needs an agent session, an event, a creation time and tokens >= 0"
	}
	return ""
}
