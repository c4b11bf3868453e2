package smriti

import (
	"encoding/json"
	"strconv"
)

// Metadata keys the product writes on a checkpoint; every other key is the
// caller's own and kept as given.
const (
	metaSessionID   = "session_id"
	metaSourceTurns = "source_turns"
	metaGit         = "git"
)

// CheckpointMeta is the typed view of the metadata keys the product writes
// on a checkpoint: the writing session, the turns it was drafted from and
// where the project's code stood. It is the one reader and writer of those
// keys: nothing else looks into the map by type. (The wire adds the notes
// under "notes" for older clients; wire reads and writes that key.)
type CheckpointMeta struct {
	SessionID   *ID
	SourceTurns *SourceTurns
	// Git is nil when there is none; a stored value that does not
	// validate is kept (its Line says "invalid git state"), so a reader can
	// tell "no state" from "a bad one".
	Git *GitState
}

// MetaOf reads the product's keys of a checkpoint's metadata. A key that is
// missing or of another shape reads as unset.
func MetaOf(m map[string]any) CheckpointMeta {
	var out CheckpointMeta
	if s, ok := m[metaSessionID].(string); ok {
		if id, err := ParseID(metaSessionID, s); err == nil {
			out.SessionID = &id
		}
	}
	if st, ok := m[metaSourceTurns].(map[string]any); ok {
		s, _ := st["session_id"].(string)
		id, err := ParseID("source_turns.session_id", s)
		from, ok1 := metaInt(st["from_seq"])
		to, ok2 := metaInt(st["to_seq"])
		if ok1 && ok2 {
			out.SourceTurns = &SourceTurns{FromSeq: from, ToSeq: to}
			if err == nil {
				out.SourceTurns.SessionID = id
			}
		}
	}
	if g, ok := m[metaGit].(map[string]any); ok {
		st := &GitState{}
		st.Commit, _ = g["commit"].(string)
		st.Branch, _ = g["branch"].(string)
		st.Dirty, _ = g["dirty"].(bool)
		st.DiffSHA256, _ = g["diff_sha256"].(string)
		if st.Commit != "" {
			out.Git = st
		}
	}
	return out
}

// metaInt reads a sequence number as JSON decoding (float64) or a write
// (int64) left it.
func metaInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// Into writes the set fields into m under their keys (unset ones are left
// alone) and returns m, a new map when m is nil.
func (cm CheckpointMeta) Into(m map[string]any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	if cm.SessionID != nil {
		m[metaSessionID] = cm.SessionID.String()
	}
	if st := cm.SourceTurns; st != nil {
		m[metaSourceTurns] = map[string]any{"session_id": st.SessionID.String(), "from_seq": st.FromSeq, "to_seq": st.ToSeq}
	}
	if cm.Git != nil {
		m[metaGit] = cm.Git.Map()
	}
	return m
}

// CommitFacts is what planning a commit reads from storage, inside the
// writing transaction.
type CommitFacts interface {
	// Session returns a session the caller can see, ENOTFOUND otherwise.
	Session(id ID) (*Session, error)
	// BranchHead returns the newest checkpoint of a branch of the space
	// (nil when the branch has none).
	BranchHead(branch string) (*ID, error)
}

// CommitPlan is everything a commit decides before it is written: the
// branch, the parent (nil for the first checkpoint of its line), the
// settled author and the metadata the product records.
type CommitPlan struct {
	Branch string
	Parent *ID
	Author Author
	Meta   CheckpointMeta
}

// PlanCommit decides a commit (see CheckpointCommit): the session's branch,
// or main with no session; the branch head as parent, or a fork's source
// before its first checkpoint (CommitBase); the author as given ("user"
// when none is named — the App settles it with CommitAuthor first); and
// the metadata: the session, the source turns (checked against their
// session) and the git state. ENOTFOUND for a session the caller cannot
// see or of another space; EUNPROCESSABLE for source turns that name no
// turns of a visible session.
func PlanCommit(in CheckpointCommit, facts CommitFacts) (CommitPlan, error) {
	var se *Session
	var plan CommitPlan
	if in.SessionID != NilID {
		var err error
		if se, err = facts.Session(in.SessionID); err != nil {
			return plan, err
		}
		if !se.InSpace(in.SpaceID) {
			return plan, Errorf(ENOTFOUND, "Session not found in this space")
		}
		plan.Meta.SessionID = &se.ID
	}
	plan.Branch = se.CommitBranch()
	head, err := facts.BranchHead(plan.Branch)
	if err != nil {
		return plan, err
	}
	plan.Parent = se.CommitBase(head)
	plan.Author = Author{Type: in.AuthorType, Agent: in.AuthorAgent}
	if plan.Author.Type == "" {
		plan.Author.Type = AuthorUser
	}
	if st := in.SourceTurns; st != nil {
		src := se
		if se == nil || st.SessionID != se.ID {
			if src, err = facts.Session(st.SessionID); ErrorCode(err) == ENOTFOUND {
				src, err = nil, nil
			} else if err != nil {
				return plan, err
			}
		}
		if err := st.Check(src); err != nil {
			return plan, err
		}
		plan.Meta.SourceTurns = st
	}
	plan.Meta.Git = in.Git
	return plan, nil
}

// PlanCreate settles what a write with an explicit parent leaves unsaid:
// the branch (main when none is named) and the author ("user" when no type
// is named).
func PlanCreate(in CheckpointCreate) (branch string, author Author) {
	branch = in.BranchName
	if branch == "" {
		branch = MainBranch
	}
	author = Author{Type: in.AuthorType, Agent: in.AuthorAgent}
	if author.Type == "" {
		author.Type = AuthorUser
	}
	return branch, author
}
