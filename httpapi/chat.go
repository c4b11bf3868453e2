package httpapi

import (
	"net/http"
	"smriti/app"
	"smriti/intelligence"
	"smriti/wire"
	"strings"

	"smriti"
)

var idempotencyHeader = map[string]string{"Idempotency-Key": "Makes a retried send safe: the same key with the same request returns the first response " +
	"(for 24 hours by default); with a different request it is refused with 422"}

func (s *Server) chatRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v4/chat/send", summary: "Send a message: resolve the context, ask the provider, store both turns", tag: "chat",
			in: wire.SendRequest{}, out: wire.SendResponse{}, status: 200, handle: s.send, headers: idempotencyHeader},
		{method: "POST", path: "/api/v5/chat/send/stream", summary: "Send a message and stream the reply as server-sent events (meta, delta, done, error)", tag: "chat",
			in: wire.SendRequest{}, status: 200, handle: s.sendStream,
			stream: "meta (the resolved context), delta (a piece of the reply), then done (the same body as a plain send) or error ({status, detail})", headers: idempotencyHeader},
		{method: "POST", path: "/api/v5/chat/context", summary: "Preview exactly what a send would give the model, without calling it (with repo_id and no session_id: what a new session of the space would start from; nothing is stored)", tag: "chat",
			in: wire.SendRequest{}, out: wire.ContextPreview{}, status: 200, handle: s.previewContext},
		{method: "GET", path: "/api/v4/chat/providers", summary: "Provider configuration status (never keys)", tag: "chat",
			out: ProvidersStatus{}, status: 200, handle: s.providerStatus},
	}
}

// sendRequest decodes a send body; the chat service validates it.
func (s *Server) sendRequest(w http.ResponseWriter, r *http.Request) (app.SendRequest, error) {
	var req wire.SendRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return app.SendRequest{}, err
	}
	sid, err := wire.ReqID("session_id", req.SessionID)
	if err != nil {
		return app.SendRequest{}, err
	}
	if _, err := wire.OptID("repo_id", req.RepoID); err != nil {
		return app.SendRequest{}, err
	}
	return s.sendRequestOf(r, sid, req)
}

// previewRequest decodes a context preview: a send in a session, or, with
// repo_id and no session_id, a new session of that space (nothing stored).
func (s *Server) previewRequest(w http.ResponseWriter, r *http.Request) (app.SendRequest, *smriti.ID, error) {
	var req wire.SendRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return app.SendRequest{}, nil, err
	}
	space, err := wire.OptID("repo_id", req.RepoID)
	if err != nil {
		return app.SendRequest{}, nil, err
	}
	var sid smriti.ID
	if req.SessionID != nil || space == nil {
		if sid, err = wire.ReqID("session_id", req.SessionID); err != nil {
			return app.SendRequest{}, nil, err
		}
		space = nil
	}
	out, err := s.sendRequestOf(r, sid, req)
	return out, space, err
}

func (s *Server) sendRequestOf(r *http.Request, sid smriti.ID, req wire.SendRequest) (app.SendRequest, error) {
	mounted, err := wire.OptID("mounted_checkpoint_id", req.MountedCheckpointID)
	if err != nil {
		return app.SendRequest{}, err
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		key = strings.TrimSpace(req.ClientRequestID)
	}
	return app.SendRequest{
		SessionID: sid, Provider: req.Provider, Model: req.Model, Message: deref(req.Message), UseMock: req.UseMock,
		Context: intelligence.ContextRequest{MemoryScope: req.MemoryScope, MountedCheckpointID: mounted, HistoryBaseSeq: req.HistoryBaseSeq,
			Unmount: req.Unmount},
		IdempotencyKey: key, HistoryBudget: req.HistoryTokenBudget,
	}, nil
}

func contextInfo(p *app.Prepared) wire.ContextInfo {
	info := wire.ContextInfo{Mode: string(p.Context.Mode), CheckpointIDs: []smriti.ID{}, CommitHashes: []string{}, DroppedTurns: p.Context.Dropped}
	for _, c := range p.Context.Checkpoints {
		info.CheckpointIDs = append(info.CheckpointIDs, c.ID)
		info.CommitHashes = append(info.CommitHashes, c.Hash)
	}
	info.FromSeq, info.ToSeq = p.Context.SeqRange()
	return info
}

func sendResponse(res *app.SendResult) wire.SendResponse {
	ex := res.Exchange
	info := contextInfo(res.Prepared)
	if ex.Replayed {
		rc := res.Reply.Context
		info = wire.ContextInfo{Mode: string(rc.Mode), CheckpointIDs: rc.CheckpointIDs, CommitHashes: append([]string{}, rc.CommitHashes...),
			FromSeq: rc.FromSeq, ToSeq: rc.ToSeq, DroppedTurns: rc.DroppedTurns}
	}
	return wire.SendResponse{
		Reply: ex.Assistant.Content, SessionID: ex.Assistant.SessionID, TurnCount: ex.Assistant.Seq + 1,
		Provider: ex.Assistant.Provider, Model: ex.Assistant.Model, UserTurnID: ex.User.ID, AssistantTurnID: ex.Assistant.ID,
		UserSeq: ex.User.Seq, AssistantSeq: ex.Assistant.Seq, Usage: res.Completion.Usage, Context: info, Replayed: ex.Replayed,
		Redactions: res.Redactions,
	}
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) error {
	req, err := s.sendRequest(w, r)
	if err != nil {
		return err
	}
	res, err := s.app.Send(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sendResponse(res))
	return nil
}

// sendStream answers with server-sent events: "meta" once the context is
// resolved, "delta" per piece of the reply, then "done" after both turns
// are stored — or "error" with the same detail a plain send would give.
// Errors found before the stream starts get an ordinary JSON error answer.
func (s *Server) sendStream(w http.ResponseWriter, r *http.Request) error {
	req, err := s.sendRequest(w, r)
	if err != nil {
		return err
	}
	es, err := newEventStream(w)
	if err != nil {
		return err
	}
	event := es.send
	res, err := s.app.Stream(r.Context(), req,
		func(p *app.Prepared) error {
			provider := ""
			if p.Provider != nil {
				provider = p.Provider.Name()
			}
			return event("meta", map[string]any{"session_id": req.SessionID, "provider": provider, "model": p.Model, "context": contextInfo(p)})
		},
		func(text string) error { return event("delta", map[string]string{"text": text}) })
	if err != nil {
		return s.failStream(es, r, err)
	}
	return event("done", sendResponse(res))
}

func (s *Server) previewContext(w http.ResponseWriter, r *http.Request) error {
	req, space, err := s.previewRequest(w, r)
	if err != nil {
		return err
	}
	p, err := s.app.PreviewContext(r.Context(), space, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, contextPreview(p))
	return nil
}

func contextPreview(p *app.ContextPreview) wire.ContextPreview {
	out := wire.ContextPreview{Mode: p.Mode, Provider: p.Provider, Model: p.Model, CheckpointIDs: []smriti.ID{},
		Checkpoints: []wire.PreviewCommit{}, TurnCount: p.TurnCount, DroppedTurns: p.DroppedTurns, HistoryBudget: p.HistoryBudget,
		TokenEstimate: p.TokenEstimate, ExactTokens: p.ExactTokens, ReplyTokens: p.ReplyTokens, Mount: wire.SessionMountOf(p.Mount),
		LastUsage: p.LastUsage, Messages: p.Messages, AllowedFromSeq: p.AllowedFromSeq, StoppedTurns: p.StoppedSeqs}
	for _, c := range p.Checkpoints {
		out.CheckpointIDs = append(out.CheckpointIDs, c.ID)
		out.Checkpoints = append(out.Checkpoints, wire.PreviewCommit{ID: c.ID, CommitHash: c.Hash, Message: c.Message, BranchName: c.BranchName})
	}
	if p.FromSeq != nil {
		out.TurnRange = &wire.SeqRange{FromSeq: *p.FromSeq, ToSeq: *p.ToSeq}
	}
	return out
}

func (s *Server) providerStatus(w http.ResponseWriter, r *http.Request) error {
	ps := s.app.Providers()
	list, def := ps.Providers, ps.DefaultProvider
	out := ProvidersStatus{}
	for name, st := range list {
		out[name] = st
	}
	out["background_intelligence"] = ps.Background
	chat := ChatDefaults{DefaultProvider: def, DefaultModel: ps.DefaultModel}
	if st, ok := list[def]; ok {
		chat.Enabled, chat.HasKey, chat.MissingPackage, chat.Configured, chat.StatusLabel = st.Enabled, st.HasKey, st.MissingPackage, st.Configured, st.StatusLabel
	} else if def == intelligence.ProviderMock {
		chat.Enabled, chat.Configured, chat.StatusLabel = true, true, "Ready (the offline mock: no provider is configured)"
	}
	out["chat"] = chat
	writeJSON(w, http.StatusOK, out)
	return nil
}
