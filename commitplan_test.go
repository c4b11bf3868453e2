package smriti_test

import (
	"reflect"
	"testing"

	"smriti"
)

// planFacts answers PlanCommit from fixed sessions and heads.
type planFacts struct {
	sessions map[smriti.ID]*smriti.Session
	heads    map[string]smriti.ID
}

func (f planFacts) Session(id smriti.ID) (*smriti.Session, error) {
	if se, ok := f.sessions[id]; ok {
		return se, nil
	}
	return nil, smriti.Errorf(smriti.ENOTFOUND, "Session not found")
}

func (f planFacts) BranchHead(branch string) (*smriti.ID, error) {
	if h, ok := f.heads[branch]; ok {
		return &h, nil
	}
	return nil, nil
}

func TestPlanCommit(t *testing.T) {
	space, other := smriti.NewID(), smriti.NewID()
	mainHead, forkSource, forkHead := smriti.NewID(), smriti.NewID(), smriti.NewID()
	onMain := &smriti.Session{ID: smriti.NewID(), SpaceID: &space, BranchName: smriti.MainBranch, LastSeq: 4}
	fresh := &smriti.Session{ID: smriti.NewID(), SpaceID: &space, BranchName: "fork-a", ForkedFromCheckpointID: &forkSource, LastSeq: -1}
	moved := &smriti.Session{ID: smriti.NewID(), SpaceID: &space, BranchName: "fork-b", ForkedFromCheckpointID: &forkSource}
	elsewhere := &smriti.Session{ID: smriti.NewID(), SpaceID: &other, BranchName: smriti.MainBranch}
	facts := planFacts{
		sessions: map[smriti.ID]*smriti.Session{onMain.ID: onMain, fresh.ID: fresh, moved.ID: moved, elsewhere.ID: elsewhere},
		heads:    map[string]smriti.ID{smriti.MainBranch: mainHead, "fork-b": forkHead},
	}
	agent := "claude-code"
	git := &smriti.GitState{Commit: "0123456789abcdef0123456789abcdef01234567", Branch: "main"}
	turns := &smriti.SourceTurns{SessionID: onMain.ID, FromSeq: 1, ToSeq: 4}
	for _, c := range []struct {
		name string
		in   smriti.CheckpointCommit
		want smriti.CommitPlan
		code string
	}{
		{"NoSessionGoesOntoMainsHeadAsTheUser", smriti.CheckpointCommit{SpaceID: space},
			smriti.CommitPlan{Branch: smriti.MainBranch, Parent: &mainHead, Author: smriti.Author{Type: smriti.AuthorUser}}, ""},
		{"SessionOnMainRecordsItsSessionTurnsAndGit", smriti.CheckpointCommit{SpaceID: space, SessionID: onMain.ID, AuthorType: smriti.AuthorLLM, AuthorAgent: &agent, SourceTurns: turns, Git: git},
			smriti.CommitPlan{Branch: smriti.MainBranch, Parent: &mainHead, Author: smriti.Author{Type: smriti.AuthorLLM, Agent: &agent},
				Meta: smriti.CheckpointMeta{SessionID: &onMain.ID, SourceTurns: turns, Git: git}}, ""},
		{"ForksFirstBuildsOnItsSource", smriti.CheckpointCommit{SpaceID: space, SessionID: fresh.ID},
			smriti.CommitPlan{Branch: "fork-a", Parent: &forkSource, Author: smriti.Author{Type: smriti.AuthorUser}, Meta: smriti.CheckpointMeta{SessionID: &fresh.ID}}, ""},
		{"ForkWithCheckpointsBuildsOnItsHead", smriti.CheckpointCommit{SpaceID: space, SessionID: moved.ID},
			smriti.CommitPlan{Branch: "fork-b", Parent: &forkHead, Author: smriti.Author{Type: smriti.AuthorUser}, Meta: smriti.CheckpointMeta{SessionID: &moved.ID}}, ""},
		{"SessionOfAnotherSpaceIsNotFound", smriti.CheckpointCommit{SpaceID: space, SessionID: elsewhere.ID}, smriti.CommitPlan{}, smriti.ENOTFOUND},
		{"UnknownSessionIsNotFound", smriti.CheckpointCommit{SpaceID: space, SessionID: smriti.NewID()}, smriti.CommitPlan{}, smriti.ENOTFOUND},
		{"TurnsPastTheSessionsEndAreRefused", smriti.CheckpointCommit{SpaceID: space, SourceTurns: &smriti.SourceTurns{SessionID: onMain.ID, FromSeq: 1, ToSeq: 9}}, smriti.CommitPlan{}, smriti.EUNPROCESSABLE},
		{"TurnsOfAnUnseenSessionAreRefused", smriti.CheckpointCommit{SpaceID: space, SourceTurns: &smriti.SourceTurns{SessionID: smriti.NewID(), ToSeq: 1}}, smriti.CommitPlan{}, smriti.EUNPROCESSABLE},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := smriti.PlanCommit(c.in, facts)
			if c.code != "" {
				if smriti.ErrorCode(err) != c.code {
					t.Fatalf("err = %v; want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("plan = %+v\nwant   %+v", got, c.want)
			}
		})
	}
}

// TestCheckpointMetaRoundTrips: what a commit writes reads back the same,
// from the map as written and from the map as a JSON column returns it.
func TestCheckpointMetaRoundTrips(t *testing.T) {
	sid := smriti.NewID()
	want := smriti.CheckpointMeta{SessionID: &sid, SourceTurns: &smriti.SourceTurns{SessionID: sid, FromSeq: 2, ToSeq: 7},
		Git: &smriti.GitState{Commit: "0123456789abcdef0123456789abcdef01234567", Branch: "main", Dirty: true, DiffSHA256: "ab"}}
	written := want.Into(map[string]any{"caller": "kept"})
	if written["caller"] != "kept" {
		t.Fatalf("Into dropped the caller's key: %v", written)
	}
	if got := smriti.MetaOf(written); !reflect.DeepEqual(got, want) {
		t.Fatalf("MetaOf(written) = %+v; want %+v", got, want)
	}
	fromJSON := map[string]any{"session_id": sid.String(),
		"source_turns": map[string]any{"session_id": sid.String(), "from_seq": float64(2), "to_seq": float64(7)},
		"git":          map[string]any{"commit": want.Git.Commit, "branch": "main", "dirty": true, "diff_sha256": "ab"}}
	if got := smriti.MetaOf(fromJSON); !reflect.DeepEqual(got, want) {
		t.Fatalf("MetaOf(JSON) = %+v; want %+v", got, want)
	}
	if got := smriti.MetaOf(map[string]any{"session_id": 3, "git": "x", "source_turns": map[string]any{"to_seq": "1"}}); !reflect.DeepEqual(got, smriti.CheckpointMeta{}) {
		t.Fatalf("MetaOf(malformed) = %+v; want nothing set", got)
	}
}
