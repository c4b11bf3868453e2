package httpapi_test

import (
	"reflect"
	"testing"

	"smriti"
	"smriti/app"
	"smriti/intelligence"
	"smriti/mcp"
	"smriti/store/storetest"
	"smriti/wire"
)

// The context preview is decided once, by the App: the HTTP answer, the
// MCP tools in-process (over the App) and over the API (through the
// client) all give the same preview of the same send.
func TestPreviewIsTheSameOverHTTPAndMCP(t *testing.T) {
	e := newEnv(t)
	sp := storetest.Get(e.c.CreateSpace(bg, wire.SpaceCreateRequest{Name: new("Trips"), Description: new("")})).Must(t)
	se := storetest.Get(e.c.CreateSession(bg, &sp.ID, "", "mock", "")).Must(t)
	for _, msg := range []string{"Sydney or Melbourne first?", "The reef in June"} {
		storetest.Get(e.c.Send(bg, sendReq(se.ID, msg), "")).Must(t)
	}
	commit := wire.CommitRequest{RepoID: strp(sp.ID.String()), SessionID: strp(se.ID.String())}
	commit.Message, commit.Decisions = strp("Australia plan"), []string{"Start in Sydney"}
	cp := storetest.Get(e.c.Commit(bg, commit)).Must(t)
	for _, msg := range []string{"Queenstown for skiing", "Milford Sound day trip"} {
		storetest.Get(e.c.Send(bg, sendReq(se.ID, msg), "")).Must(t)
	}
	base := int64(1)
	cases := []struct {
		name  string
		space *smriti.ID
		req   app.SendRequest
	}{
		{"Head", nil, app.SendRequest{SessionID: se.ID, Message: "next?", Provider: "mock"}},
		{"MountedFromABase", nil, app.SendRequest{SessionID: se.ID, Message: "what did we decide?", Provider: "mock",
			Context: intelligence.ContextRequest{MountedCheckpointID: &cp.ID, HistoryBaseSeq: &base}}},
		{"LatestThreeOnABudget", nil, app.SendRequest{SessionID: se.ID, Message: "and then?", Provider: "mock", HistoryBudget: 30,
			Context: intelligence.ContextRequest{MemoryScope: "latest_3"}}},
		{"NewSessionOfTheSpace", &sp.ID, app.SendRequest{Message: "where do we start?"}},
	}
	overAPI := mcp.NewClientOps(e.c)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inProcess := storetest.Get(e.app.PreviewContext(bg, tc.space, tc.req)).Must(t)
			viaClient := storetest.Get(overAPI.PreviewContext(bg, tc.space, tc.req)).Must(t)
			if !reflect.DeepEqual(inProcess, viaClient) {
				t.Fatalf("in-process preview\n%+v\nover the API\n%+v", inProcess, viaClient)
			}
			body := wire.SendRequest{Message: &tc.req.Message, Provider: tc.req.Provider, MemoryScope: tc.req.Context.MemoryScope,
				HistoryBaseSeq: tc.req.Context.HistoryBaseSeq, HistoryTokenBudget: tc.req.HistoryBudget}
			if tc.space != nil {
				body.RepoID = strp(tc.space.String())
			} else {
				body.SessionID = strp(se.ID.String())
			}
			if m := tc.req.Context.MountedCheckpointID; m != nil {
				body.MountedCheckpointID = strp(m.String())
			}
			p := storetest.Get(e.c.PreviewContext(bg, body)).Must(t)
			if p.Mode != inProcess.Mode || p.Model != inProcess.Model || p.TokenEstimate != inProcess.TokenEstimate ||
				p.TurnCount != inProcess.TurnCount || p.DroppedTurns != inProcess.DroppedTurns || p.AllowedFromSeq != inProcess.AllowedFromSeq ||
				!reflect.DeepEqual(p.Messages, inProcess.Messages) || len(p.Checkpoints) != len(inProcess.Checkpoints) {
				t.Fatalf("HTTP preview\n%+v\nin-process\n%+v", p, inProcess)
			}
			for i, c := range p.Checkpoints {
				if c.ID != inProcess.Checkpoints[i].ID || c.CommitHash != inProcess.Checkpoints[i].Hash || p.CheckpointIDs[i] != c.ID {
					t.Fatalf("HTTP checkpoint %d = %+v, in-process %+v", i, c, inProcess.Checkpoints[i])
				}
			}
		})
	}
	// The cases cover what differs between them.
	head := storetest.Get(e.app.PreviewContext(bg, nil, cases[0].req)).Must(t)
	mounted := storetest.Get(e.app.PreviewContext(bg, nil, cases[1].req)).Must(t)
	fresh := storetest.Get(e.app.PreviewContext(bg, &sp.ID, cases[3].req)).Must(t)
	if head.Mode != "HEAD" || head.LastUsage == nil || head.FromSeq == nil || mounted.Mode != "MOUNTED" ||
		mounted.Mount == nil || mounted.Mount.CheckpointID != cp.ID || *mounted.FromSeq != 2 || fresh.TurnCount != 0 {
		t.Fatalf("head %+v\nmounted %+v\nnew session %+v", head, mounted, fresh)
	}
}
