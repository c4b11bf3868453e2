package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"smriti"
	"smriti/client"
	"smriti/render"
	"smriti/store/storetest"
	"smriti/wire"
)

func sp(s string) *string { return &s }

func TestStateBriefEndToEnd(t *testing.T) {
	for _, engine := range []struct {
		name string
		opts []envOption
	}{{"SQLite", nil}, {"Postgres", []envOption{withPostgres()}}} {
		t.Run(engine.name, func(t *testing.T) {
			e := newEnv(t, engine.opts...)
			space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Research"), Description: new("")})).Must(t)

			// An empty space: every section present, [] or null.
			var raw map[string]any
			if _, err := e.c.Do(bg, http.MethodGet, "/api/v4/chat/spaces/"+space.ID.String()+"/state", nil, &raw); err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]string{"commit": "<nil>", "active_branches": "[]", "active_claims": "[]",
				"divergence": "<nil>", "freshness": "<nil>", "mount": "<nil>"} {
				if got := fmtAny(raw[k]); got != want {
					t.Errorf("empty state %s = %s, want %s", k, got, want)
				}
			}

			se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
			a := commitVia(t, e, space.ID, se.ID, "A", "Local models", "Vector index")
			fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: sp(space.ID.String()), CheckpointID: sp(a.ID.String()), BranchName: "alt"})).Must(t)
			commitVia(t, e, space.ID, fork.SessionID, "Alt", "Hosted models")
			b := commitVia(t, e, space.ID, se.ID, "B", "Local models", "Vector index", "Audit")

			claim := storetest.Get(e.c.Claim(bg, wire.ClaimRequest{SpaceID: sp(space.ID.String()), Agent: sp("codex"), Scope: sp("Index job"),
				TaskID: sp("t1"), BaseCommitID: sp(a.ID.String())})).Must(t)
			if len(claim.Collisions) != 0 || claim.Status != "active" || claim.IntentType != "implement" {
				t.Fatalf("claim = %+v", claim)
			}
			// The task is held: a second claimer is refused, told who holds it.
			_, err := e.c.Claim(bg, wire.ClaimRequest{SpaceID: sp(space.ID.String()), Agent: sp("claude"), Scope: sp("Other words"), TaskID: sp("t1")})
			wantCode(t, err, smriti.ECONFLICT)
			if !strings.Contains(err.Error(), "Task 't1' is already claimed by codex (claim "+claim.ID.String()[:8]+") until ") {
				t.Fatalf("second claimer told %v", err)
			}
			dup := storetest.Get(e.c.Claim(bg, wire.ClaimRequest{SpaceID: sp(space.ID.String()), Agent: sp("claude"), Scope: sp("index JOB"),
				TaskID: sp("t9"), IntentType: sp("Review")})).Must(t)
			if len(dup.Collisions) != 1 || dup.Collisions[0].ID != claim.ID || dup.IntentType != "review" {
				t.Fatalf("collision not reported: %+v", dup)
			}

			st := storetest.Get(e.c.State(bg, space.ID, client.StateOptions{Since: &a.ID})).Must(t)
			if st.Commit == nil || st.Commit.ID != b.ID || *st.Head.CommitID != b.ID || len(st.ActiveBranches) != 1 ||
				st.ActiveBranches[0].BranchName != "alt" || len(st.ActiveClaims) != 2 || st.ActiveClaims[1].BaseCommitHash == nil ||
				*st.ActiveClaims[1].BaseCommitHash != a.CommitHash[:7] {
				t.Fatalf("state = %+v", st)
			}
			if st.Divergence == nil || len(st.Divergence.Pairs) != 1 || st.Divergence.Pairs[0].BranchName != "alt" {
				t.Fatalf("divergence = %+v", st.Divergence)
			}
			if f := st.Freshness; f == nil || !f.Changed || f.NewCheckpointsCount != 1 || f.NewCheckpoints[0].CommitHash != b.CommitHash[:7] {
				t.Fatalf("freshness = %+v", st.Freshness)
			}
			// The client renders the brief exactly as the server does.
			opts := render.BriefOptions{Mode: render.BriefCompact, Now: st.Commit.CreatedAt}
			md := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{StateOptions: client.StateOptions{Since: &a.ID}, Compact: true})).Must(t)
			local := render.RenderBrief(st.Brief(), opts)
			for _, want := range []string{"## State: changed since `" + a.CommitHash[:7] + "`", "# Research", "## Active branches\n- `alt`",
				"## Active work\n- `claude` [review] on `main` from `?`", "(task: t9)", "### main ↔ `alt`"} {
				if !strings.Contains(md, want) || !strings.Contains(local, want) {
					t.Errorf("brief lacks %q\nserver:\n%s\nclient:\n%s", want, md, local)
				}
			}

			unknown := smriti.NewID()
			_, err = e.c.State(bg, space.ID, client.StateOptions{Since: &unknown})
			wantCode(t, err, smriti.ENOTFOUND)
			status, body := e.raw(t, "GET", "/api/v4/chat/spaces/"+space.ID.String()+"/state?since_commit_id=nope", "")
			if status != 400 || !strings.Contains(body, "since_commit_id") {
				t.Fatalf("bad since: %d %s", status, body)
			}
			status, body = e.raw(t, "GET", "/api/v5/spaces/"+space.ID.String()+"/brief?format=html", "")
			if status != 400 {
				t.Fatalf("format=html: %d %s", status, body)
			}

			// Claims over HTTP: bounds, wrong space, finish once.
			for _, h := range []string{"0", "0.01", "169", "-1", "1e308"} {
				status, body := e.raw(t, "POST", "/api/v5/claims", `{"space_id":"`+space.ID.String()+`","agent":"a","scope":"s","ttl_hours":`+h+`}`)
				if status != 422 || !strings.Contains(body, "ttl_hours") {
					t.Errorf("ttl_hours %s: %d %s", h, status, body)
				}
			}
			other := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Other"), Description: new("")})).Must(t)
			_, err = e.c.Claim(bg, wire.ClaimRequest{SpaceID: sp(other.ID.String()), Scope: sp("s"), BaseCommitID: sp(a.ID.String())})
			wantCode(t, err, smriti.EINVALID)
			_, err = e.c.Claim(bg, wire.ClaimRequest{SpaceID: sp(other.ID.String()), Scope: sp("s"), SessionID: sp(se.ID.String())})
			wantCode(t, err, smriti.EINVALID)
			done := storetest.Get(e.c.FinishClaim(bg, claim.ID, "done")).Must(t)
			if done.Status != "done" {
				t.Fatalf("finished = %+v", done)
			}
			_, err = e.c.FinishClaim(bg, claim.ID, "abandoned")
			wantCode(t, err, smriti.ECONFLICT)
			list, next, err := e.c.Claims(bg, space.ID, client.ClaimsOptions{})
			if err != nil || len(list) != 1 || list[0].ID != dup.ID || next != "" {
				t.Fatalf("live claims = %+v, %q, %v", list, next, err)
			}
			all, _, err := e.c.Claims(bg, space.ID, client.ClaimsOptions{IncludeExpired: true})
			if err != nil || len(all) != 2 {
				t.Fatalf("all claims = %d, %v", len(all), err)
			}
			status, _ = e.raw(t, "GET", "/api/v5/claims", "")
			if status != 422 {
				t.Fatalf("claims without space_id: %d", status)
			}
			_, _, err = e.c.Claims(bg, smriti.NewID(), client.ClaimsOptions{})
			wantCode(t, err, smriti.ENOTFOUND)

			m := storetest.Get(e.c.SpaceMetrics(bg, space.ID)).Must(t)
			if m.Coordination.TotalCheckpoints != 3 || m.Coordination.TotalClaims != 2 || m.Coordination.ClaimsDone != 1 ||
				m.Coordination.ClaimCompletionRate == nil || *m.Coordination.ClaimCompletionRate != 1 || m.Branches.Active != 1 ||
				m.StateQuality.AvgDecisionsPerCheckpoint != 2 {
				t.Fatalf("metrics = %+v", m)
			}
		})
	}
}

func fmtAny(v any) string {
	if v == nil {
		return "<nil>"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func commitVia(t *testing.T, e *testEnv, space, session smriti.ID, msg string, decisions ...string) *wire.Commit {
	t.Helper()
	var out wire.Commit
	_, err := e.c.Do(bg, http.MethodPost, "/api/v4/chat/commit", map[string]any{"repo_id": space, "session_id": session,
		"message": msg, "decisions": decisions}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestContextPacksAndParentDelta(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Packs"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	root := commitVia(t, e, space.ID, se.ID, "Root", "Local models")
	var child wire.Commit
	if _, err := e.c.Do(bg, http.MethodPost, "/api/v4/chat/commit", map[string]any{"repo_id": space.ID, "session_id": se.ID,
		"message": "Child", "summary": "Two stages", "decisions": []string{"Local models", "Reranker"},
		"tasks": []any{"plain", map[string]any{"text": "Bench", "id": "t1", "intent_hint": "test", "status": "done"}}}, &child); err != nil {
		t.Fatal(err)
	}
	for _, target := range render.PackTargets {
		pack := storetest.Get(e.c.ContextPack(bg, child.ID, target)).Must(t)
		c, _ := e.store.Checkpoint(bg, child.ID)
		sp, _ := e.store.Space(bg, space.ID)
		want, _ := render.RenderContextPack(sp, c, target)
		if pack.Content != want || pack.TargetTool != target || pack.Format != "markdown" {
			t.Fatalf("%s pack = %+v", target, pack)
		}
		if !strings.Contains(pack.Content, "Bench") || !strings.Contains(pack.Content, "Reranker") {
			t.Fatalf("%s pack lacks content:\n%s", target, pack.Content)
		}
	}
	// No target is generic.
	var pack wire.ContextPack
	if _, err := e.c.Do(bg, http.MethodPost, "/api/v2/context/from-commit", map[string]any{"commit_id": child.ID}, &pack); err != nil ||
		pack.TargetTool != "generic" || !strings.HasPrefix(pack.Content, "--- SMRITI CONTEXT PACK ---\nSpace: Packs\n") {
		t.Fatalf("default pack = %+v, %v", pack, err)
	}
	_, err := e.c.ContextPack(bg, child.ID, "vim")
	wantCode(t, err, smriti.EUNPROCESSABLE)
	_, err = e.c.ContextPack(bg, smriti.NewID(), "generic")
	wantCode(t, err, smriti.ENOTFOUND)
	status, _ := e.raw(t, "POST", "/api/v2/context/from-commit", `{"commit_id": "nope"}`)
	if status != 400 {
		t.Fatalf("bad commit_id: %d", status)
	}

	d := storetest.Get(e.c.ParentDelta(bg, root.ID)).Must(t)
	if d.Current.ID != root.ID || d.Parent != nil || d.Current.Decisions[0] != "Local models" {
		t.Fatalf("root delta = %+v", d)
	}
	d = storetest.Get(e.c.ParentDelta(bg, child.ID)).Must(t)
	if d.Current.ID != child.ID || d.Parent == nil || d.Parent.ID != root.ID || *d.Current.ParentCommitID != root.ID ||
		len(d.Current.Tasks) != 2 || d.Current.Tasks[1].Status != "done" || d.Current.Summary != "Two stages" {
		t.Fatalf("child delta = %+v", d)
	}
	_, err = e.c.ParentDelta(bg, smriti.NewID())
	wantCode(t, err, smriti.ENOTFOUND)
}

func TestTaskStatusSurvivesEveryPath(t *testing.T) {
	e := newEnv(t)
	space := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Tasks"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &space.ID, "s", "mock", "m")).Must(t)
	// Tasks as people write them (any case, an unknown hint) are cleaned,
	// not refused; the document names only the clean values.
	lax := laxRequest(bg)
	var a wire.Commit
	if _, err := e.c.Do(lax, http.MethodPost, "/api/v4/chat/commit", map[string]any{"repo_id": space.ID, "session_id": se.ID,
		"message": "A", "tasks": []any{" plain ", map[string]any{"text": "Bench", "id": " t1", "intent_hint": "TEST", "status": "open"},
			map[string]any{"text": "Odd", "intent_hint": "refactor"}, "plain"}}, &a); err != nil {
		t.Fatal(err)
	}
	if got := fmtAny(a.Tasks); got != `["plain",{"text":"Bench","id":"t1","intent_hint":"test","status":"open"},{"text":"Odd"}]` {
		t.Fatalf("commit tasks = %s", got)
	}
	status, body := e.raw(t, "POST", "/api/v4/chat/commit", `{"repo_id":"`+space.ID.String()+`","session_id":"`+se.ID.String()+
		`","message":"x","tasks":[{"text":"t","status":"claimed"}]}`)
	if status != 422 || !strings.Contains(body, "status") {
		t.Fatalf("claimed status: %d %s", status, body)
	}
	// The legacy create path cleans the same way.
	var legacy wire.Commit
	if _, err := e.c.Do(lax, http.MethodPost, "/api/v2/commits", map[string]any{"repo_id": space.ID, "parent_commit_id": a.ID,
		"branch_name": "side", "message": "L", "tasks": []any{map[string]any{"text": " Bench ", "status": "DONE"}}}, &legacy); err != nil {
		t.Fatal(err)
	}
	if got := fmtAny(legacy.Tasks); got != `[{"text":"Bench","status":"done"}]` {
		t.Fatalf("legacy tasks = %s", got)
	}

	fork := storetest.Get(e.c.Fork(bg, wire.ForkRequest{SpaceID: sp(space.ID.String()), CheckpointID: sp(a.ID.String()), BranchName: "done-bench"})).Must(t)
	var b wire.Commit
	if _, err := e.c.Do(bg, http.MethodPost, "/api/v4/chat/commit", map[string]any{"repo_id": space.ID, "session_id": fork.SessionID,
		"message": "B", "tasks": []any{"plain", map[string]any{"text": "Bench", "id": "t1", "intent_hint": "test", "status": "done"}, "Odd"}}, &b); err != nil {
		t.Fatal(err)
	}
	cmp := storetest.Get(e.c.Compare(bg, a.ID, b.ID)).Must(t)
	if cmp.CheckpointB.Tasks[1].Status != "done" || cmp.CheckpointA.Tasks[1].Status != "open" {
		t.Fatalf("compare lost the status: %+v / %+v", cmp.CheckpointA.Tasks, cmp.CheckpointB.Tasks)
	}
	merged := storetest.Get(e.c.Merge(bg, wire.MergeRequest{SpaceID: sp(space.ID.String()), SourceCheckpointID: sp(b.ID.String())})).Must(t)
	var bench *smriti.Task
	for i, task := range merged.Checkpoint.Tasks {
		if task.Text == "Bench" {
			bench = &merged.Checkpoint.Tasks[i]
		}
	}
	if bench == nil || bench.Status != "done" || bench.ID != "t1" {
		t.Fatalf("merge lost the status: %+v", merged.Checkpoint.Tasks)
	}
	md := storetest.Get(e.c.Brief(bg, space.ID, client.BriefOptions{})).Must(t)
	// A done task keeps its status as its own section: done is not in progress.
	if !strings.Contains(md, "## Done\n- Bench [test] (id: t1)\n") || strings.Contains(md, "(done)") {
		t.Fatalf("brief lost the status:\n%s", md)
	}
}
