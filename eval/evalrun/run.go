// Package evalrun runs eval scenarios against a Smriti server the way a user
// would: only through the public Go client (sessions, sends, drafts,
// commits, forks, mounts, merges, context previews). It turns what the
// server answered into eval.Observations for the pure scoring in package
// eval, and runs the two baselines by calling the same model directly.
//
// It must not import the store, the HTTP server or the providers: it meets
// them only over HTTP (and, for the baselines, through the
// intelligence.Provider interface).
package evalrun

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"smriti"
	"smriti/client"
	"smriti/eval"
	"smriti/intelligence"
	"smriti/wire"
)

// Options configure a run.
type Options struct {
	Client *client.Client
	// Background is the background provider's name, which the draft token
	// counts are read for (from the server's /metrics).
	Background string
	// Prime counts the tokens `smriti prime` costs for a space state.
	Prime func(*wire.SpaceState) int
	// Model, ModelName and Window are the model the baselines call
	// directly (nil Model: no baselines) and its context window.
	Model     intelligence.Provider
	ModelName string
	Window    int
	// Chat is the provider the conversation's sends are answered by,
	// streamed; "" is the offline mock (not streamed): only drafts are
	// scored, so a real model for chat only costs tokens.
	Chat string
	// Progress, when set, is told of each scenario as it starts.
	Progress func(name string)
}

// probeMessage is the message a probe previews a send of.
const probeMessage = "What do you know about this work so far?"

// Run runs every scenario and scores it.
func Run(ctx context.Context, o Options, scenarios []*eval.Scenario) []eval.Row {
	var rows []eval.Row
	for i, sc := range scenarios {
		if o.Progress != nil {
			o.Progress(sc.Name)
		}
		tr, err := eval.Replay(sc)
		row := eval.Row{Scenario: sc.Name, File: sc.File, Hash: sc.Hash, Turns: sc.Turns, Saves: sc.Saves}
		if err != nil {
			row.Smriti = eval.Score{Scenario: sc.Name, Hash: sc.Hash, Err: err.Error()}
			rows = append(rows, row)
			continue
		}
		r := &runner{o: o, sc: sc, tr: tr, sessions: map[string]*session{}, labels: map[string]smriti.ID{},
			turnOf: map[string]int{}, ob: &eval.Observation{Conflicts: map[int][]string{}}}
		err = r.run(ctx, fmt.Sprintf("eval-%02d-%s", i+1, sc.Name))
		row.Smriti, row.Drafts = eval.ScoreRun(sc, tr, r.ob), r.ob.Drafts
		if err != nil {
			row.Smriti.Err = err.Error()
		}
		if o.Model != nil {
			full, notes := Baselines(ctx, o, sc, tr)
			row.FullContext, row.Notes = &full, &notes
		}
		rows = append(rows, row)
	}
	return rows
}

type session struct {
	id    smriti.ID
	draft *wire.DraftOut
}

type runner struct {
	o        Options
	sc       *eval.Scenario
	tr       *eval.Truth
	space    smriti.ID
	sessions map[string]*session
	labels   map[string]smriti.ID
	turnOf   map[string]int // session id + "/" + seq → scenario turn
	ob       *eval.Observation
}

func turnKey(session smriti.ID, seq int64) string {
	return session.String() + "/" + strconv.FormatInt(seq, 10)
}

func (r *runner) run(ctx context.Context, name string) error {
	c := r.o.Client
	desc := "Smriti eval scenario " + r.sc.Name + " (" + r.sc.Hash + ")"
	sp, err := c.CreateSpace(ctx, wire.SpaceCreateRequest{Name: &name, Description: &desc})
	if err != nil {
		return fmt.Errorf("create space: %w", err)
	}
	r.space = sp.ID
	for i, st := range r.sc.Steps {
		if err := r.step(ctx, i, st); err != nil {
			return fmt.Errorf("script line %d (%s): %w", st.Line, st.Verb, err)
		}
	}
	head, err := c.LatestCheckpoint(ctx, r.space, "main")
	if err != nil {
		return fmt.Errorf("main's head: %w", err)
	}
	if head != nil {
		items, err := c.CheckpointItems(ctx, head.ID)
		if err != nil {
			return fmt.Errorf("main's items: %w", err)
		}
		for _, it := range items {
			if it.Status != smriti.ItemOpen && it.Status != smriti.ItemDone {
				continue
			}
			turn := 0
			if it.Origin.SessionID != nil && it.Origin.FromSeq != nil {
				turn = r.turnOf[turnKey(*it.Origin.SessionID, *it.Origin.FromSeq)]
			}
			r.ob.Final = append(r.ob.Final, eval.ObservedItem{ID: it.ID, Kind: it.Kind, Text: it.Text, Status: it.Status, Turn: turn})
		}
	}
	if r.o.Prime != nil {
		st, err := c.State(ctx, r.space, client.StateOptions{})
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		r.ob.PrimeTokens = r.o.Prime(st)
	}
	return nil
}

// chat is the provider sends name.
func (r *runner) chat() string {
	if r.o.Chat == "" {
		return "mock"
	}
	return r.o.Chat
}

func (r *runner) sess(name string) (*session, error) {
	s, ok := r.sessions[name]
	if !ok {
		return nil, fmt.Errorf("no session %q", name)
	}
	return s, nil
}

func (r *runner) step(ctx context.Context, i int, st eval.Step) error {
	c := r.o.Client
	switch st.Verb {
	case "session":
		var space *smriti.ID
		if !st.NoSpace {
			space = &r.space
		}
		out, err := c.CreateSession(ctx, space, st.Session, r.chat(), "")
		if err != nil {
			return err
		}
		r.sessions[st.Session] = &session{id: out.ID}
	case "say":
		s, err := r.sess(st.Session)
		if err != nil {
			return err
		}
		sid, msg := s.id.String(), st.Text
		req := wire.SendRequest{SessionID: &sid, Message: &msg, Provider: r.chat()}
		var out *wire.SendResponse
		if r.o.Chat == "" {
			out, err = c.Send(ctx, req, "")
		} else {
			out, err = c.SendStream(ctx, req, func(client.StreamEvent) {})
		}
		if err != nil {
			return err
		}
		r.turnOf[turnKey(s.id, out.UserSeq)] = st.Turn
	case "save", "draft":
		s, err := r.sess(st.Session)
		if err != nil {
			return err
		}
		if s.draft, err = r.draft(ctx, s); err != nil {
			return err
		}
		if st.Verb == "save" {
			return r.commit(ctx, i, s, st)
		}
	case "commit":
		s, err := r.sess(st.Session)
		if err != nil {
			return err
		}
		if s.draft == nil {
			return fmt.Errorf("session %q has no kept draft", st.Session)
		}
		return r.commit(ctx, i, s, st)
	case "fork":
		from, ok := r.labels[st.Label]
		if !ok {
			return fmt.Errorf("no checkpoint %q", st.Label)
		}
		sp, cp := r.space.String(), from.String()
		out, err := c.Fork(ctx, wire.ForkRequest{SpaceID: &sp, CheckpointID: &cp, BranchName: st.Branch, Provider: r.chat()})
		if err != nil {
			return err
		}
		r.sessions[st.Session] = &session{id: out.SessionID}
	case "mount":
		s, err := r.sess(st.Session)
		if err != nil {
			return err
		}
		cp, ok := r.labels[st.Label]
		if !ok {
			return fmt.Errorf("no checkpoint %q", st.Label)
		}
		_, err = c.Mount(ctx, s.id, cp, nil)
		return err
	case "merge":
		return r.merge(ctx, i, st)
	case "probe":
		return r.probe(ctx, st)
	default:
		return fmt.Errorf("unknown step %q", st.Verb)
	}
	return nil
}

// draft asks for a draft and records its cost.
func (r *runner) draft(ctx context.Context, s *session) (*wire.DraftOut, error) {
	sid := s.id.String()
	before, _ := r.tokens(ctx)
	start := time.Now()
	d, err := r.o.Client.Draft(ctx, wire.DraftRequest{SessionID: &sid})
	wall := time.Since(start)
	if err != nil {
		return nil, err
	}
	after, _ := r.tokens(ctx)
	r.ob.Drafts = append(r.ob.Drafts, eval.DraftCost{InputTokens: after[0] - before[0], OutputTokens: after[1] - before[1], Wall: wall, Chunks: d.Chunks})
	return d, nil
}

// commit saves a session's kept draft as cli's hook does: its items with
// their ids and the draft's base, so the server keeps identities and
// rebases onto a head that moved.
//
// A 409 (the head changed the same items since the draft's base) is
// recorded as the step's conflicts and settled as the step says (theirs,
// this save's values, when it says nothing).
func (r *runner) commit(ctx context.Context, i int, s *session, st eval.Step) error {
	d := s.draft
	s.draft = nil
	msg := strings.TrimSpace(d.Title)
	if msg == "" {
		msg = "Eval checkpoint"
	}
	rid, sid := r.space.String(), s.id.String()
	req := wire.CommitRequest{RepoID: &rid, SessionID: &sid, ContentFields: wire.ContentFields{Message: &msg, Summary: d.Summary,
		Objective: d.Objective, Decisions: d.Decisions, Assumptions: d.Assumptions, Tasks: d.Tasks, OpenQuestions: d.OpenQuestions, Entities: d.Entities}}
	if src := d.SourceTurns; src != nil {
		from, to, ss := src.FromSeq, src.ToSeq, src.SessionID.String()
		req.SourceTurns = &wire.SourceTurnsIn{SessionID: &ss, FromSeq: &from, ToSeq: &to}
	}
	req.Items, req.Model = wire.ItemsInOf(wire.DomainItems(d.Items)), d.Model
	if d.BaseCheckpointID != nil {
		b := d.BaseCheckpointID.String()
		req.BaseCheckpointID = &b
	}
	cp, err := r.o.Client.Commit(ctx, req)
	if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
		choice := st.Resolve
		if choice == "" {
			choice = "theirs"
		}
		req.Resolutions, r.ob.Conflicts[i] = r.conflicts(cc.Conflicts, choice)
		cp, err = r.o.Client.Commit(ctx, req)
	}
	if err != nil {
		return err
	}
	if st.Label != "" {
		r.labels[st.Label] = cp.ID
	}
	return nil
}

// conflicts settles every conflict with choice, and names the item
// conflicts by their scenario keys (sorted; "?field:key" for one that maps
// to none). The title, objective and summary are prose every draft
// rewrites, so both sides always conflict on them: they are settled like
// the rest but not scored.
func (r *runner) conflicts(cfs []smriti.MergeConflict, choice string) ([]smriti.MergeResolution, []string) {
	var res []smriti.MergeResolution
	found := []string{}
	for _, cf := range cfs {
		res = append(res, smriti.MergeResolution{Field: cf.Field, Key: cf.Key, Choice: choice})
		if !itemFields[cf.Field] {
			continue
		}
		key := ""
		for _, text := range []string{cf.Ours, cf.Theirs, cf.Base} {
			if key = eval.KeyOf(kindOfField(cf.Field, cf.Kind), text, r.tr.All); key != "" {
				break
			}
		}
		if key == "" {
			key = "?" + cf.Field + ":" + cf.Key
		}
		found = append(found, key)
	}
	slices.Sort(found)
	return res, found
}

func (r *runner) merge(ctx context.Context, i int, st eval.Step) error {
	c := r.o.Client
	head, err := c.LatestCheckpoint(ctx, r.space, st.Branch)
	if err != nil {
		return err
	}
	if head == nil {
		return fmt.Errorf("branch %q has no checkpoint", st.Branch)
	}
	sp, src := r.space.String(), head.ID.String()
	req := wire.MergeRequest{SpaceID: &sp, SourceCheckpointID: &src}
	p, err := c.MergePreview(ctx, req)
	if err != nil {
		return err
	}
	choice := st.Resolve
	if choice == "" {
		choice = "ours"
	}
	req.Resolutions, r.ob.Conflicts[i] = r.conflicts(p.Conflicts, choice)
	out, err := c.Merge(ctx, req)
	if err != nil {
		return err
	}
	if st.Label != "" {
		r.labels[st.Label] = out.Checkpoint.ID
	}
	return nil
}

// itemFields are the content fields that hold items.
var itemFields = map[string]bool{"decisions": true, "assumptions": true, "tasks": true, "open_questions": true, "entities": true}

// kindOfField is the item kind of a merge conflict's field.
func kindOfField(field, kind string) string {
	if kind != "" {
		return kind
	}
	switch field {
	case "decisions":
		return string(smriti.KindDecision)
	case "assumptions":
		return string(smriti.KindAssumption)
	case "tasks":
		return string(smriti.KindTask)
	case "open_questions":
		return string(smriti.KindQuestion)
	case "entities":
		return string(smriti.KindEntity)
	}
	return field
}

// probe checks what a session's model would be given: the mode, no
// forbidden string, every live item of the checkpoint it must see; with
// draft, that a draft from it holds no forbidden string either.
func (r *runner) probe(ctx context.Context, st eval.Step) error {
	c := r.o.Client
	s, err := r.sess(st.Session)
	if err != nil {
		return err
	}
	sid, msg := s.id.String(), probeMessage
	p, err := c.PreviewContext(ctx, wire.SendRequest{SessionID: &sid, Message: &msg, Provider: r.chat()})
	if err != nil {
		return err
	}
	var seen strings.Builder
	for _, m := range p.Messages {
		seen.WriteString(m.Content)
		seen.WriteByte('\n')
	}
	res := eval.ProbeResult{Want: st.Mode, Mode: p.Mode, Leaks: []string{}}
	for _, w := range st.Forbid {
		if strings.Contains(seen.String(), w) {
			res.Leaks = append(res.Leaks, "context:"+w)
		}
	}
	if st.Sees != "" {
		items, err := c.CheckpointItems(ctx, r.labels[st.Sees])
		if err != nil {
			return err
		}
		for _, it := range items {
			if (it.Status == smriti.ItemOpen || it.Status == smriti.ItemDone) && !strings.Contains(seen.String(), it.Text) {
				res.Missing++
			}
		}
	}
	if st.Draft {
		d, err := r.draft(ctx, s)
		if err != nil {
			return err
		}
		for _, it := range d.Items {
			for _, w := range st.Forbid {
				if strings.Contains(it.Text, w) {
					res.Leaks = append(res.Leaks, "draft:"+w)
				}
			}
		}
	}
	r.ob.Probes = append(r.ob.Probes, res)
	return nil
}

// tokens reads the background provider's input and output token counters
// from the server's Prometheus metrics.
func (r *runner) tokens(ctx context.Context) ([2]int, error) {
	var out [2]int
	c := r.o.Client
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/metrics", nil)
	if err != nil {
		return out, err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "smriti_provider_tokens_total{") {
			continue
		}
		if r.o.Background != "" && !strings.Contains(line, `provider="`+r.o.Background+`"`) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(line, `direction="input"`):
			out[0] += int(v)
		case strings.Contains(line, `direction="output"`):
			out[1] += int(v)
		}
	}
	return out, sc.Err()
}
