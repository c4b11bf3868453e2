package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"smriti/app"
	"smriti/intelligence"
	"sort"
	"strings"

	"smriti"
)

// SendRequest is the body of a send, a streamed send and a context preview.
// The mount fields are omitted when nil, so the Go client never sends the
// explicit null that ends a mount unless asked to.
type SendRequest struct {
	SessionID           *string `json:"session_id" required:"true" doc:"The session to send in"`
	RepoID              *string `json:"repo_id" doc:"Ignored: the session's own space is authoritative (accepted for compatibility)"`
	Provider            string  `json:"provider" required:"false" doc:"Provider for this send; default: the session's provider"`
	Model               string  `json:"model" required:"false" doc:"Model for this send; default: the session's model (the provider's default model when the provider changes)"`
	Message             *string `json:"message" required:"true" doc:"The user message (at most 100,000 characters)"`
	UseMock             bool    `json:"use_mock" required:"false" default:"false" doc:"Answer this one send with the offline mock; the session keeps its provider"`
	MemoryScope         string  `json:"memory_scope" required:"false" enum:"latest_1,latest_3" default:"latest_1" doc:"How many checkpoints enter the context"`
	MountedCheckpointID *string `json:"mounted_checkpoint_id,omitempty" doc:"Mount this checkpoint; a new one is recorded on the session and used by later sends. null (sent explicitly) ends the session's mount; left out, the mount stays"`
	HistoryBaseSeq      *int64  `json:"history_base_seq,omitempty" doc:"With a mount: the last sequence number to leave out (-1: every turn). Wins over the session's stored base for this send"`
	// ClientRequestID is the body form of the Idempotency-Key header.
	ClientRequestID    string `json:"client_request_id" required:"false" doc:"Idempotency key, when the Idempotency-Key header is not sent"`
	HistoryTokenBudget int    `json:"history_token_budget" required:"false" doc:"Token budget for history turns; default: the model's window minus the reply reserve and the fixed messages"`

	// unmount is set by decoding when the body names
	// "mounted_checkpoint_id": null (see smriti.ContextRequest.Unmount).
	unmount bool
}

// UnmarshalJSON decodes a send body and notes an explicit
// "mounted_checkpoint_id": null, which a pointer cannot tell from absence.
func (r *SendRequest) UnmarshalJSON(b []byte) error {
	type plain SendRequest
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	var named struct {
		Mounted json.RawMessage `json:"mounted_checkpoint_id"`
	}
	if err := json.Unmarshal(b, &named); err != nil {
		return err
	}
	r.unmount = string(named.Mounted) == "null"
	return nil
}

// ContextInfo says what a reply was built from.
type ContextInfo struct {
	Mode          string      `json:"mode" enum:"FRESH,HEAD,MOUNTED,FORKED" doc:"The context mode the reply was built in"`
	CheckpointIDs []smriti.ID `json:"checkpoint_ids" doc:"Checkpoints given to the model, oldest first"`
	CommitHashes  []string    `json:"commit_hashes" doc:"Their hashes, in the same order"`
	FromSeq       *int64      `json:"from_seq" doc:"First history turn sent (null when none)"`
	ToSeq         *int64      `json:"to_seq" doc:"Last history turn sent (null when none)"`
	DroppedTurns  int         `json:"dropped_turns" doc:"Allowed turns left out to fit the budget"`
}

// SendResponse answers a send (the first implementation's fields first).
type SendResponse struct {
	Reply           string             `json:"reply" doc:"The assistant's reply"`
	SessionID       smriti.ID          `json:"session_id" doc:"The session"`
	TurnCount       int64              `json:"turn_count" doc:"Turns in the session after this send"`
	Provider        string             `json:"provider" doc:"The provider recorded for the reply (with use_mock: the one asked for, though the mock answered)"`
	Model           string             `json:"model" doc:"The model recorded for the reply"`
	UserTurnID      smriti.ID          `json:"user_turn_id" doc:"The stored user turn"`
	AssistantTurnID smriti.ID          `json:"assistant_turn_id" doc:"The stored assistant turn"`
	UserSeq         int64              `json:"user_seq" doc:"The user turn's sequence number"`
	AssistantSeq    int64              `json:"assistant_seq" doc:"The assistant turn's sequence number (user_seq + 1)"`
	Usage           intelligence.Usage `json:"usage" doc:"Tokens the provider reported (estimates for the mock)"`
	Context         ContextInfo        `json:"context" doc:"What the reply was built from"`
	Replayed        bool               `json:"replayed" doc:"True when this answers a repeated idempotency key: the first send's response, the provider not called again"`
}

// ContextPreview is exactly what a send with the same body would give the
// model, without calling it.
type ContextPreview struct {
	Mode          string                 `json:"mode" enum:"FRESH,HEAD,MOUNTED,FORKED" doc:"The context mode: FRESH, HEAD, MOUNTED or FORKED"`
	Provider      string                 `json:"provider" doc:"The provider the send would call"`
	Model         string                 `json:"model" doc:"The model it would ask"`
	CheckpointIDs []smriti.ID            `json:"checkpoint_ids" doc:"Checkpoints given to the model, oldest first"`
	Checkpoints   []PreviewCommit        `json:"checkpoints" doc:"The same checkpoints, named"`
	TurnRange     *SeqRange              `json:"turn_range" doc:"Sequence numbers of the history turns sent (null when none)"`
	TurnCount     int                    `json:"turn_count" doc:"How many history turns are sent"`
	DroppedTurns  int                    `json:"dropped_turns" doc:"Allowed turns left out to fit the budget, oldest first"`
	HistoryBudget int                    `json:"history_budget" doc:"Token budget the history turns were fitted to"`
	TokenEstimate int                    `json:"token_estimate" doc:"Tokens of the whole prompt: exact for OpenAI models, else an estimate with a 15% margin"`
	ExactTokens   bool                   `json:"exact_tokens" doc:"True when token_estimate comes from the model's own tokenizer"`
	ReplyTokens   int                    `json:"reply_tokens" doc:"Reply reserve: the max_tokens the provider is asked for, kept free in the window"`
	Mount         *SessionMount          `json:"mount" doc:"The session's mount (null when none); a send with this body records a new one when it names another checkpoint"`
	LastUsage     *intelligence.Usage    `json:"last_usage" doc:"Prompt and completion tokens the provider reported for the session's newest reply (null before the first)"`
	Messages      []intelligence.Message `json:"messages" doc:"Exactly the messages the provider would get: system, the history turns, the new message"`
}

// PreviewCommit names a checkpoint in a preview.
type PreviewCommit struct {
	ID         smriti.ID `json:"id" doc:"The checkpoint"`
	CommitHash string    `json:"commit_hash" doc:"The checkpoint's hash: 64 hex digits of SHA-256 over its content and its parents' hashes"`
	Message    string    `json:"message" doc:"Its title"`
	BranchName string    `json:"branch_name" doc:"The branch (main, or a fork's branch)"`
}

// SeqRange is an inclusive range of turn sequence numbers.
type SeqRange struct {
	FromSeq int64 `json:"from_seq" doc:"First sequence number, inclusive"`
	ToSeq   int64 `json:"to_seq" doc:"Last sequence number, inclusive"`
}

// ProvidersStatus is the provider status answer: one entry per provider,
// "background_intelligence" and "chat" (ChatDefaults). Keys are never
// included.
type ProvidersStatus map[string]any

// apiSchema documents the known keys of the provider status answer.
func (ProvidersStatus) apiSchema(g *schemaGen) map[string]any {
	described := func(t reflect.Type, d string) map[string]any {
		return map[string]any{"allOf": []any{g.schema(t, dirOut)}, "description": d}
	}
	props := map[string]any{
		"background_intelligence": described(reflect.TypeOf(intelligence.BackgroundStatus{}), "The slot that drafts, reviews, extracts and titles"),
		"chat": described(reflect.TypeOf(ChatDefaults{}),
			"What a session created without a provider uses, with that provider's status fields"),
	}
	required := []string{"background_intelligence", "chat"}
	for _, name := range []string{intelligence.ProviderAnthropic, intelligence.ProviderGeneric, intelligence.ProviderOpenAI, intelligence.ProviderOpenRouter} {
		props[name] = described(reflect.TypeOf(intelligence.ProviderStatus{}), "The "+name+" provider's status")
		required = append(required, name)
	}
	sort.Strings(required)
	return map[string]any{"type": "object", "properties": props, "required": required,
		"description": "One entry per provider, the background intelligence slot, and the chat defaults. Never keys."}
}

// ChatDefaults says which provider and model a session created without
// them uses (a send without them uses its session's). It carries the status
// fields of every other entry, those of the default provider, because
// clients iterate the entries and read them from each.
type ChatDefaults struct {
	DefaultProvider string `json:"default_provider" doc:"Provider a new session uses when the request names none (mock when no provider can be called)"`
	DefaultModel    string `json:"default_model" doc:"That provider's default model (\"\" when none is configured)"`
	Enabled         bool   `json:"enabled" doc:"The default provider is enabled"`
	HasKey          bool   `json:"has_key" doc:"The default provider has its API key (generic: its base URL; mock: false, it needs none)"`
	MissingPackage  bool   `json:"missing_package" doc:"Always false: every provider is built into the binary (kept for the first implementation's clients)"`
	Configured      bool   `json:"configured" doc:"Sends without a provider can be answered: the default provider is enabled and has what it needs"`
	StatusLabel     string `json:"status_label" doc:"The default provider's status for people, such as Ready"`
}

var idempotencyHeader = map[string]string{"Idempotency-Key": "Makes a retried send safe: the same key with the same request returns the first response " +
	"(for 24 hours by default); with a different request it is refused with 422"}

func (s *Server) chatRoutes() []route {
	return []route{
		{method: "POST", path: "/api/v4/chat/send", summary: "Send a message: resolve the context, ask the provider, store both turns", tag: "chat",
			in: SendRequest{}, out: SendResponse{}, status: 200, handle: s.send, headers: idempotencyHeader},
		{method: "POST", path: "/api/v5/chat/send/stream", summary: "Send a message and stream the reply as server-sent events (meta, delta, done, error)", tag: "chat",
			in: SendRequest{}, status: 200, handle: s.sendStream,
			stream: "meta (the resolved context), delta (a piece of the reply), then done (the same body as a plain send) or error ({status, detail})", headers: idempotencyHeader},
		{method: "POST", path: "/api/v5/chat/context", summary: "Preview exactly what a send would give the model, without calling it (with repo_id and no session_id: what a new session of the space would start from; nothing is stored)", tag: "chat",
			in: SendRequest{}, out: ContextPreview{}, status: 200, handle: s.previewContext},
		{method: "GET", path: "/api/v4/chat/providers", summary: "Provider configuration status (never keys)", tag: "chat",
			out: ProvidersStatus{}, status: 200, handle: s.providerStatus},
	}
}

// sendRequest decodes a send body; the chat service validates it.
func (s *Server) sendRequest(w http.ResponseWriter, r *http.Request) (app.SendRequest, error) {
	var req SendRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return app.SendRequest{}, err
	}
	sid, err := reqID("session_id", req.SessionID)
	if err != nil {
		return app.SendRequest{}, err
	}
	if _, err := optID("repo_id", req.RepoID); err != nil {
		return app.SendRequest{}, err
	}
	return s.sendRequestOf(r, sid, req)
}

// previewRequest decodes a context preview: a send in a session, or, with
// repo_id and no session_id, a new session of that space (nothing stored).
func (s *Server) previewRequest(w http.ResponseWriter, r *http.Request) (app.SendRequest, *smriti.ID, error) {
	var req SendRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return app.SendRequest{}, nil, err
	}
	space, err := optID("repo_id", req.RepoID)
	if err != nil {
		return app.SendRequest{}, nil, err
	}
	var sid smriti.ID
	if req.SessionID != nil || space == nil {
		if sid, err = reqID("session_id", req.SessionID); err != nil {
			return app.SendRequest{}, nil, err
		}
		space = nil
	}
	out, err := s.sendRequestOf(r, sid, req)
	return out, space, err
}

func (s *Server) sendRequestOf(r *http.Request, sid smriti.ID, req SendRequest) (app.SendRequest, error) {
	mounted, err := optID("mounted_checkpoint_id", req.MountedCheckpointID)
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
			Unmount: req.unmount},
		IdempotencyKey: key, HistoryBudget: req.HistoryTokenBudget,
	}, nil
}

func contextInfo(p *app.Prepared) ContextInfo {
	info := ContextInfo{Mode: string(p.Context.Mode), CheckpointIDs: []smriti.ID{}, CommitHashes: []string{}, DroppedTurns: p.Context.Dropped}
	for _, c := range p.Context.Checkpoints {
		info.CheckpointIDs = append(info.CheckpointIDs, c.ID)
		info.CommitHashes = append(info.CommitHashes, c.Hash)
	}
	info.FromSeq, info.ToSeq = p.Context.SeqRange()
	return info
}

func sendResponse(res *app.SendResult) SendResponse {
	ex := res.Exchange
	info := contextInfo(res.Prepared)
	if ex.Replayed {
		rc := res.Reply.Context
		info = ContextInfo{Mode: string(rc.Mode), CheckpointIDs: rc.CheckpointIDs, CommitHashes: append([]string{}, rc.CommitHashes...),
			FromSeq: rc.FromSeq, ToSeq: rc.ToSeq, DroppedTurns: rc.DroppedTurns}
	}
	return SendResponse{
		Reply: ex.Assistant.Content, SessionID: ex.Assistant.SessionID, TurnCount: ex.Assistant.Seq + 1,
		Provider: ex.Assistant.Provider, Model: ex.Assistant.Model, UserTurnID: ex.User.ID, AssistantTurnID: ex.Assistant.ID,
		UserSeq: ex.User.Seq, AssistantSeq: ex.Assistant.Seq, Usage: res.Completion.Usage, Context: info, Replayed: ex.Replayed,
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
	flusher, ok := w.(http.Flusher)
	if !ok {
		return smriti.Errorf(smriti.EINTERNAL, "streaming is not supported by this connection")
	}
	started := false
	event := func(name string, v any) error {
		if !started {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	}
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
		if !started {
			return err
		}
		status, body := s.errorAnswer(r, err)
		_ = event("error", map[string]any{"status": status, "detail": body.Detail})
		return nil
	}
	return event("done", sendResponse(res))
}

func (s *Server) previewContext(w http.ResponseWriter, r *http.Request) error {
	req, space, err := s.previewRequest(w, r)
	if err != nil {
		return err
	}
	p, err := s.app.Preview(r.Context(), space, req)
	if err != nil {
		return err
	}
	out := ContextPreview{Mode: string(p.Context.Mode), Provider: p.Provider.Name(), Model: p.Model, CheckpointIDs: []smriti.ID{},
		Checkpoints: []PreviewCommit{}, TurnCount: len(p.Context.Turns), DroppedTurns: p.Context.Dropped,
		HistoryBudget: p.Budget, TokenEstimate: p.Context.Tokens, Messages: p.Context.Messages, ReplyTokens: p.ReplyTokens,
		Mount: sessionMountOf(p.Session.Mount)}
	if p.Mount != nil {
		out.Mount = sessionMountOf(p.Mount)
	}
	if tokens := s.app.Chat.Tokens; tokens != nil {
		_, out.ExactTokens = tokens.CountTokens(p.Provider.Name(), p.Model, "")
	}
	var last []*smriti.Turn
	if p.Session.ID != smriti.NilID { // a new session's preview has no turns yet
		if last, err = s.app.Turns(r.Context(), p.Session.ID, smriti.TurnQuery{Newest: true, Limit: 2, ExcludeSystem: true}); err != nil {
			return err
		}
	}
	for _, t := range last {
		if t.Role == smriti.RoleAssistant {
			u := intelligence.ReplyMetaOf(t).Usage
			out.LastUsage = &u
			break
		}
	}
	for _, c := range p.Context.Checkpoints {
		out.CheckpointIDs = append(out.CheckpointIDs, c.ID)
		out.Checkpoints = append(out.Checkpoints, PreviewCommit{ID: c.ID, CommitHash: c.Hash, Message: c.Message, BranchName: c.BranchName})
	}
	if from, to := p.Context.SeqRange(); from != nil {
		out.TurnRange = &SeqRange{FromSeq: *from, ToSeq: *to}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) providerStatus(w http.ResponseWriter, r *http.Request) error {
	list, bg := s.app.Providers.Status()
	out := ProvidersStatus{}
	for name, st := range list {
		out[name] = st
	}
	out["background_intelligence"] = bg
	def := s.app.Providers.DefaultProvider()
	chat := ChatDefaults{DefaultProvider: def, DefaultModel: s.app.Providers.DefaultModel(def)}
	if st, ok := list[def]; ok {
		chat.Enabled, chat.HasKey, chat.MissingPackage, chat.Configured, chat.StatusLabel = st.Enabled, st.HasKey, st.MissingPackage, st.Configured, st.StatusLabel
	} else if def == intelligence.ProviderMock {
		chat.Enabled, chat.Configured, chat.StatusLabel = true, true, "Ready (the offline mock: no provider is configured)"
	}
	out["chat"] = chat
	writeJSON(w, http.StatusOK, out)
	return nil
}
