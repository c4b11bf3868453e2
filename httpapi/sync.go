package httpapi

import (
	"net/http"
	"strings"

	"smriti"
	"smriti/app"
	"smriti/remote"
	"smriti/wire"
)

// syncRoutes are copies of one space on several servers: the answering
// side of a fetch and a push (/sync/…), and the asking side's remotes,
// fetch, pull, push and clone, which this server runs against another.
func (s *Server) syncRoutes() []route {
	const space = "/api/v5/spaces/{space_id}"
	const one = space + "/remotes/{name}"
	return []route{
		{method: "GET", path: space + "/sync/refs", summary: "Where a space's branches stand on this server, and its turn cursor (the other side of a fetch or push)",
			tag: "sync", out: wire.SyncRefs{}, status: 200, handle: s.syncRefs},
		{method: "POST", path: space + "/sync/fetch", summary: "The records a copy lacks, as a sync stream (gzip'd JSON Lines): checkpoints parents first, sessions and turns in log order; private sessions never included",
			tag: "sync", in: wire.SyncFetchRequest{}, status: 200, text: "application/gzip", handle: s.syncFetch},
		{method: "POST", path: space + "/sync/push", summary: "Store a pushed sync stream (the body, application/gzip) and move the branch by fast-forward only: 409 naming both heads when it is not where the pusher saw it",
			tag: "sync", out: wire.SyncPushOut{}, status: 200, files: []string{"application/gzip"}, errors: []int{409},
			mustQuery: []string{"branch", "head"}, query: map[string]string{
				"branch": "the branch to move", "expect": "its head as the pusher last saw it here (absent: the branch has no checkpoint here)",
				"head": "its head after the push (the stream's last checkpoint of the branch)"}, handle: s.syncPush},
		{method: "GET", path: space + "/remotes", summary: "A space's remotes, with where each branch stands against them", tag: "sync",
			out: []wire.RemoteOut{}, status: 200, handle: s.listRemotes},
		{method: "POST", path: space + "/remotes", summary: "Add a remote: another Smriti server (its token is kept as a secret) or a git repository holding a copy of the space; 503 for a git repository on a server that does not reach them", tag: "sync",
			in: wire.RemoteRequest{}, out: wire.RemoteOut{}, status: 201, errors: []int{409, 503}, handle: s.addRemote},
		{method: "GET", path: one, summary: "A remote, with where each branch stands against it", tag: "sync", out: wire.RemoteOut{}, status: 200, handle: s.getRemote},
		{method: "DELETE", path: one, summary: "Forget a remote, its heads and what was fetched from it and not pulled", tag: "sync", status: 204, handle: s.removeRemote},
		{method: "POST", path: one + "/fetch", summary: "Fetch what this copy lacks from the remote: verified record by record, stored without moving any local branch",
			tag: "sync", out: wire.FetchOut{}, status: 200, errors: []int{422, 502, 503}, handle: s.fetchRemote},
		{method: "POST", path: one + "/pull", summary: "Fetch, then bring the remote's branch into the local one: fast-forward, or a three-way merge by item id whose conflicts follow on_conflict",
			tag: "sync", in: wire.PullRequest{}, out: wire.PullOut{}, status: 200, errors: []int{409, 502, 503}, handle: s.pullRemote},
		{method: "POST", path: one + "/push", summary: "Send the remote what it lacks of a branch; its head moves by fast-forward only (409 naming both heads when it moved: pull, then push again)",
			tag: "sync", in: wire.PushRequest{}, out: wire.PushOut{}, status: 200, errors: []int{409, 502, 503}, handle: s.pushRemote},
		{method: "POST", path: "/api/v5/clone", summary: "Make this server's exact copy of a space on another server (same ids and hashes; private sessions stay there) and record it as the space's remote",
			tag: "sync", in: wire.CloneRequest{}, out: wire.CloneOut{}, status: 201, errors: []int{409, 502, 503}, handle: s.cloneSpace},
		{method: "GET", path: "/api/v5/sessions/{session_id}/private", summary: "Whether a session is private (never leaves this server)", tag: "sync",
			out: wire.SessionPrivateOut{}, status: 200, handle: s.getSessionPrivate},
		{method: "PUT", path: "/api/v5/sessions/{session_id}/private", summary: "Mark a session private (its turns, the quotes they lend, its receipts and context records never leave this server) or shared",
			tag: "sync", in: wire.SessionPrivateRequest{}, out: wire.SessionPrivateOut{}, status: 200, handle: s.setSessionPrivate},
	}
}

func (s *Server) syncRefs(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	heads, cursor, err := s.app.SyncRefs(r.Context(), space)
	if err != nil {
		return err
	}
	out := wire.SyncRefs{SpaceID: space, Heads: make([]wire.SyncHeadOut, 0, len(heads)), Cursor: cursor}
	for _, h := range heads {
		out.Heads = append(out.Heads, wire.SyncHeadOut{Branch: h.Branch, CheckpointID: h.CheckpointID, CommitHash: h.Hash})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) syncFetch(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.SyncFetchRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	want := req.Want()
	if err := want.Validate(); err != nil {
		return err
	}
	if _, err := s.app.Space(r.Context(), space); err != nil {
		return err
	}
	// The answer is written whole before its first byte is sent, so every
	// error gets a JSON answer; one while it is sent (the connection) cuts
	// it short, which is how the receiver learns (its stream ends before
	// the sync_end record).
	return s.app.SyncExport(r.Context(), space, want, &gzipAnswer{w: w})
}

// gzipAnswer sets a sync answer's content type at its first byte.
type gzipAnswer struct {
	w       http.ResponseWriter
	started bool
}

func (g *gzipAnswer) Write(p []byte) (int, error) {
	if !g.started {
		g.started = true
		g.w.Header().Set("Content-Type", "application/gzip")
	}
	return g.w.Write(p)
}

func (s *Server) syncPush(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	if _, err := s.app.Space(r.Context(), space); err != nil {
		return err
	}
	q := r.URL.Query()
	push := remote.Push{Branch: strings.TrimSpace(q.Get("branch")), Head: q.Get("head")}
	if push.Branch == "" || push.Head == "" {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "query parameters branch and head are required")
	}
	if e := q.Get("expect"); e != "" {
		push.Expect = &e
	}
	body, err := s.importBody(w, r)
	if err != nil {
		return err
	}
	stored, err := s.app.ReceivePush(r.Context(), space, push, body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SyncPushOut{Branch: push.Branch, Head: push.Head, Stored: wire.CountsOf(stored)})
	return nil
}

func (s *Server) listRemotes(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	list, err := s.app.Remotes(r.Context(), space)
	if err != nil {
		return err
	}
	out := make([]wire.RemoteOut, 0, len(list))
	for _, st := range list {
		out = append(out, wire.RemoteOf(st.Remote, st.Divergence, s.now()))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) addRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.RemoteRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if _, err := s.app.Space(r.Context(), space); err != nil {
		return err
	}
	other, err := wire.OptID("remote_space_id", req.RemoteSpaceID)
	if err != nil {
		return err
	}
	in := remote.Create{SpaceID: space, Name: req.Name, URL: req.URL, RemoteSpaceID: other}
	if req.Token != nil {
		in.Token = *req.Token
	}
	rm, err := s.app.AddRemote(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.RemoteOf(rm, nil, s.now()))
	return nil
}

func (s *Server) getRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	st, err := s.app.ShowRemote(r.Context(), space, r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.RemoteOf(st.Remote, st.Divergence, s.now()))
	return nil
}

func (s *Server) removeRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	if err := s.app.RemoveRemote(r.Context(), space, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) fetchRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	f, err := s.app.Fetch(r.Context(), space, r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, fetchOut(f, s))
	return nil
}

func fetchOut(f *app.FetchResult, s *Server) *wire.FetchOut {
	if f == nil {
		return nil
	}
	return &wire.FetchOut{Remote: f.Remote, Staged: wire.CountsOf(f.Staged), Heads: wire.HeadsOf(f.Heads), Divergence: wire.DivergenceOf(f.Divergence, s.now())}
}

func (s *Server) pullRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.PullRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	policy, err := remote.ParsePolicy(req.OnConflict)
	if err != nil {
		return err
	}
	res, err := s.app.Pull(r.Context(), app.PullRequest{SpaceID: space, Remote: r.PathValue("name"), Branch: req.Branch, Policy: policy, NoFetch: req.NoFetch})
	if err != nil {
		return err
	}
	out := wire.PullOut{Outcome: res.Outcome, Fetch: fetchOut(res.Fetch, s), Conflicts: res.Conflicts, Applied: wire.CountsOf(res.Applied)}
	if res.Head != nil {
		c := wire.CommitOf(res.Head)
		out.Head = &c
	}
	if res.Merge != nil {
		c := wire.CommitOf(res.Merge)
		out.Merge = &c
	}
	if res.Proposal != nil {
		p := wire.ProposalOf(res.Proposal)
		out.Proposal = &p
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) pushRemote(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	var req wire.PushRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	push := s.app.Push
	if req.Propose {
		push = s.app.PushProposal
	}
	res, err := push(r.Context(), space, r.PathValue("name"), req.Branch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.PushOut{Outcome: res.Outcome, Branch: res.Branch, OldHead: res.OldHead, NewHead: res.NewHead,
		Stored: wire.CountsOf(res.Stored), ProposalID: res.Proposal})
	return nil
}

func (s *Server) cloneSpace(w http.ResponseWriter, r *http.Request) error {
	var req wire.CloneRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	id, err := wire.ReqID("space_id", req.SpaceID)
	if err != nil {
		return err
	}
	in := app.CloneRequest{URL: req.URL, SpaceID: id, Name: req.Name}
	if req.Token != nil {
		in.Token = *req.Token
	}
	sp, err := s.app.Clone(r.Context(), in)
	if err != nil {
		return err
	}
	st, err := s.app.ShowRemote(r.Context(), sp.ID, in.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wire.CloneOut{Repo: wire.RepoOf(sp), Remote: wire.RemoteOf(st.Remote, st.Divergence, s.now())})
	return nil
}

func (s *Server) getSessionPrivate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	private, err := s.app.SessionPrivate(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionPrivateOut{SessionID: id, Private: private})
	return nil
}

func (s *Server) setSessionPrivate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	var req wire.SessionPrivateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		return err
	}
	if _, err := s.app.SessionPrivate(r.Context(), id); err != nil {
		return err
	}
	if req.Private == nil {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "private is required (true or false)")
	}
	if err := s.app.SetSessionPrivate(r.Context(), id, *req.Private); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.SessionPrivateOut{SessionID: id, Private: *req.Private})
	return nil
}
