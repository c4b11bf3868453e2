package httpapi_test

import (
	"context"
	"fmt"
	"smriti/coord"
	"testing"

	"smriti"
)

// BenchmarkSpaceState is the state brief of a busy space: 10,000
// checkpoints (5,000 on main, 100 on each of 50 active branches whose
// decisions all differ from main's), 20 live claims, asked with a
// since_commit_id far back on main.
//
//	go test -run '^$' -bench SpaceState -benchtime 2000x ./httpapi/
func BenchmarkSpaceState(b *testing.B) {
	e := newBenchEnv(b)
	ctx := context.Background()
	commit := func(se *smriti.Session, i int, decision string) *smriti.Checkpoint {
		c, err := e.st.CommitCheckpoint(ctx, smriti.CheckpointCommit{SpaceID: e.space.ID, SessionID: se.ID,
			Content: smriti.Content{Message: fmt.Sprintf("checkpoint %d", i), Summary: "a summary of the state so far",
				Decisions: []string{"decision one", decision}, Tasks: []smriti.Task{{Text: "a task"}}}})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	var first *smriti.Checkpoint
	for i := 0; i < 5000; i++ {
		c := commit(e.session, i, "main decision")
		if i == 100 {
			first = c
		}
	}
	for br := 0; br < 50; br++ {
		fork, err := e.st.ForkSession(ctx, smriti.ForkCreate{SpaceID: e.space.ID, CheckpointID: first.ID, BranchName: fmt.Sprintf("branch-%02d", br)})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			commit(fork, i, fmt.Sprintf("branch %d decision", br))
		}
	}
	for i := 0; i < 20; i++ {
		if _, _, err := e.st.CreateClaim(ctx, coord.ClaimCreate{SpaceID: e.space.ID, Agent: "agent", Scope: fmt.Sprintf("scope %d", i),
			TaskID: fmt.Sprintf("t%d", i), BaseCheckpointID: &first.ID}); err != nil {
			b.Fatal(err)
		}
	}
	path := "/api/v4/chat/spaces/" + e.space.ID.String() + "/state?since_commit_id=" + first.ID.String()
	timed(b, func(int) { e.do(b, "GET", path, "", 200) })
}

// BenchmarkSpaceStateItems is the state of a space whose head checkpoint
// holds 300 items, as `smriti state` and `smriti prime` read it.
//
//	go test -run '^$' -bench SpaceStateItems -benchtime 20x -cpuprofile cpu.out ./httpapi/
func BenchmarkSpaceStateItems(b *testing.B) {
	e := newBenchEnv(b)
	if _, err := e.st.CommitCheckpoint(context.Background(), smriti.CheckpointCommit{SpaceID: e.space.ID, SessionID: e.session.ID,
		Content: stateContent(300)}); err != nil {
		b.Fatal(err)
	}
	path := "/api/v4/chat/spaces/" + e.space.ID.String() + "/state"
	timed(b, func(int) { e.do(b, "GET", path, "", 200) })
}

// BenchmarkSpaceBriefItems is the brief `smriti state --compact` and the
// SessionStart hook read: rendered by the server, on a space whose head
// checkpoint holds 300 items.
//
//	go test -run '^$' -bench SpaceBriefItems -benchtime 200x -cpuprofile cpu.out ./httpapi/
func BenchmarkSpaceBriefItems(b *testing.B) {
	e := newBenchEnv(b)
	if _, err := e.st.CommitCheckpoint(context.Background(), smriti.CheckpointCommit{SpaceID: e.space.ID, SessionID: e.session.ID,
		Content: stateContent(300)}); err != nil {
		b.Fatal(err)
	}
	path := "/api/v5/spaces/" + e.space.ID.String() + "/brief?format=markdown&compact=true&budget=3000&home=%2Froot"
	timed(b, func(int) { e.do(b, "GET", path, "", 200) })
}
