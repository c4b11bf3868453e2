package coord

import (
	"context"
	"smriti"
	"smriti/internal/textutil"
	"strings"
	"time"
)

// Claim statuses. A claim is active until it is finished once (done or
// abandoned) or its time runs out; expiry is computed from the clock when
// read, never written back.
const (
	ClaimActive    = "active"
	ClaimDone      = "done"
	ClaimAbandoned = "abandoned"
)

// Claim is an advisory declaration that an agent is working on something in
// a space. Claims never lock anything: a claim that collides with another is
// still stored, and both agents are told.
type Claim struct {
	ID               smriti.ID
	SpaceID          smriti.ID
	SessionID        *smriti.ID
	Agent            string
	BranchName       string
	BaseCheckpointID *smriti.ID
	WorktreeID       *smriti.ID
	Scope            string
	TaskID           *string
	Intent           string
	Status           string
	ClaimedAt        time.Time
	ExpiresAt        time.Time
	// Redactions are the secrets the write that answers with this claim
	// replaced in its scope. Not stored.
	Redactions []smriti.Redaction
}

// ClaimCreate is what a caller may set when claiming work.
type ClaimCreate struct {
	SpaceID          smriti.ID
	Agent            string
	Scope            string
	BranchName       string
	BaseCheckpointID *smriti.ID
	SessionID        *smriti.ID
	WorktreeID       *smriti.ID
	TaskID           string
	Intent           string
	// TTL is how long the claim lives; nil is DefaultClaimTTL.
	TTL *time.Duration
}

// ClaimTTLHours converts a TTL given in (possibly fractional) hours, as the
// wire carries it, without overflowing: values far outside the allowed
// range stay outside it.
func ClaimTTLHours(h float64) time.Duration {
	switch {
	case h != h || h < 0:
		return -1
	case h > 2*MaxClaimTTL.Hours():
		return 2 * MaxClaimTTL
	}
	return time.Duration(h * float64(time.Hour))
}

// Normalize trims the text fields and fills defaults (branch main, intent
// implement, TTL four hours), then validates: the intent must be one of the
// five (EINVALID, 400, as the first implementation answers), the TTL within
// MinClaimTTL..MaxClaimTTL, the scope non-blank, every text within its
// limit (EUNPROCESSABLE).
func (in *ClaimCreate) Normalize() error {
	in.Agent = strings.TrimSpace(in.Agent)
	in.Scope = strings.TrimSpace(in.Scope)
	in.BranchName = strings.TrimSpace(in.BranchName)
	in.TaskID = strings.TrimSpace(in.TaskID)
	in.Intent = strings.ToLower(strings.TrimSpace(in.Intent))
	if in.BranchName == "" {
		in.BranchName = smriti.MainBranch
	}
	if in.Intent == "" {
		in.Intent = smriti.IntentImplement
	}
	if in.TTL == nil {
		d := DefaultClaimTTL
		in.TTL = &d
	}
	switch {
	case !smriti.ValidIntent(in.Intent):
		return smriti.Errorf(smriti.EINVALID, "Invalid intent_type '%s'. Must be one of: docs, implement, investigate, review, test", textutil.Truncate(in.Intent, 40))
	case *in.TTL < MinClaimTTL || *in.TTL > MaxClaimTTL:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "ttl_hours must be between 1 minute (0.0167) and 7 days (168), got %.4g hours", in.TTL.Hours())
	case in.Scope == "":
		return smriti.Errorf(smriti.EUNPROCESSABLE, "scope must not be empty")
	case textutil.RuneLen(in.Scope) > maxClaimScope:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "scope must be at most %d characters", maxClaimScope)
	case textutil.RuneLen(in.Agent) > MaxClaimAgent:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "agent must be at most %d characters", MaxClaimAgent)
	case textutil.RuneLen(in.TaskID) > maxClaimTaskID:
		return smriti.Errorf(smriti.EUNPROCESSABLE, "task_id must be at most %d characters", maxClaimTaskID)
	}
	return smriti.ValidateBranchName(in.BranchName)
}

// Collides reports whether two claims are about the same work: the same
// non-empty task id, or scopes equal under smriti.NormalizeItem.
func (c *Claim) Collides(o *Claim) bool {
	if c.TaskID != nil && o.TaskID != nil && *c.TaskID != "" && *c.TaskID == *o.TaskID {
		return true
	}
	k := smriti.NormalizeItem(c.Scope)
	return k != "" && k == smriti.NormalizeItem(o.Scope)
}

// CheckFinish validates a status change: only done or abandoned
// (EINVALID otherwise), only from a live claim (ECONFLICT when it was already
// finished or has expired at now).
func (c *Claim) CheckFinish(status string, now time.Time) error {
	if status != ClaimDone && status != ClaimAbandoned {
		return smriti.Errorf(smriti.EINVALID, "Invalid status '%s'. Must be 'done' or 'abandoned'.", textutil.Truncate(status, 40))
	}
	if c.Status != ClaimActive {
		return smriti.Errorf(smriti.ECONFLICT, "Claim is already '%s' — cannot update.", c.Status)
	}
	if !c.ExpiresAt.After(now) {
		return smriti.Errorf(smriti.ECONFLICT, "Claim expired at %s — cannot update; claim the work again.", c.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// ClaimQuery selects claims of one space, newest first.
type ClaimQuery struct {
	// IncludeExpired also returns expired, done and abandoned claims.
	IncludeExpired bool
	smriti.Page
}

// ClaimService manages claims. Every method is scoped to the caller in ctx.
type ClaimService interface {
	// CreateClaim stores a live claim (expiry from the store's clock) and
	// returns it with the other live claims of the space it collides with
	// ([] when none). ENOTFOUND for an unknown space or worktree; the
	// error Normalize gives for input it refuses; EINVALID when the base
	// checkpoint or session is missing or belongs to another space, or the
	// worktree belongs to another space or is closed.
	CreateClaim(ctx context.Context, in ClaimCreate) (*Claim, []*Claim, error)
	// Claims lists a space's claims, newest first: live ones only unless
	// q.IncludeExpired. ENOTFOUND for an unknown space.
	Claims(ctx context.Context, spaceID smriti.ID, q ClaimQuery) ([]*Claim, string, error)
	// FinishClaim marks a live claim done or abandoned (Claim.CheckFinish
	// decides); ENOTFOUND for an unknown claim.
	FinishClaim(ctx context.Context, id smriti.ID, status string) (*Claim, error)
}
