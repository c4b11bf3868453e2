package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A state is the context a measured session sends in: FRESH (no space),
// HEADn (attached to a space whose head checkpoint holds n items),
// MOUNTEDn (mounted on such a checkpoint) or FORKEDn (forked from it).
type state struct {
	name  string
	mode  string // fresh, head, mounted or forked
	items int
}

var stateName = regexp.MustCompile(`^(FRESH|HEAD|MOUNTED|FORKED)(\d*)$`)

// parseStates reads -states: names such as FRESH, HEAD300, MOUNTED300,
// comma separated (HEAD, MOUNTED and FORKED default to 300 items).
func parseStates(list string) ([]state, error) {
	var out []state
	for _, f := range strings.Split(list, ",") {
		name := strings.ToUpper(strings.TrimSpace(f))
		m := stateName.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("unknown state %q (FRESH, HEADn, MOUNTEDn or FORKEDn)", f)
		}
		st := state{name: name, mode: strings.ToLower(m[1])}
		if st.mode != "fresh" {
			st.items = 300
			if m[2] != "" {
				n, err := strconv.Atoi(m[2])
				if err != nil || n < 1 || n > 4000 {
					return nil, fmt.Errorf("state %q: items must be 1 to 4000", f)
				}
				st.items = n
			}
			st.name = fmt.Sprintf("%s%d", m[1], st.items)
		} else if m[2] != "" {
			return nil, fmt.Errorf("state %q: FRESH has no items", f)
		}
		out = append(out, st)
	}
	return out, nil
}

// stateBody is a commit of n items: decisions, assumptions, tasks and open
// questions in turn (each list stays under the 1,000-item cap up to 4,000).
func stateBody(space, session string, n int) (string, error) {
	lists := map[string][]string{}
	kinds := []string{"decisions", "assumptions", "tasks", "open_questions"}
	for i := 0; i < n; i++ {
		k := kinds[i%4]
		lists[k] = append(lists[k], fmt.Sprintf("Item %d: service %d keeps its cache for %d minutes", i, i*7, i%60))
	}
	body := map[string]any{"repo_id": space, "session_id": session, "message": fmt.Sprintf("state of %d items", n),
		"summary": "the state of the load test so far"}
	for k, v := range lists {
		body[k] = v
	}
	b, err := json.Marshal(body)
	return string(b), err
}

// stateSessions makes the n sessions a state sends in and returns their
// ids: FRESH sessions each on its own; the others in one space, on the one
// checkpoint of st.items items (a state is one space's head, and its
// sessions are the people and agents working in that space).
func stateSessions(cl *http.Client, base string, st state, n int) ([]string, error) {
	var ids []string
	if st.mode == "fresh" {
		for range n {
			var se struct {
				ID string `json:"id"`
			}
			if err := postJSON(cl, base+"/api/v4/chat/sessions", `{"title":"load","provider":"mock","model":"mock"}`, 201, &se); err != nil {
				return nil, err
			}
			ids = append(ids, se.ID)
		}
		return ids, nil
	}
	var sp, writer, cp struct {
		ID string `json:"id"`
	}
	if err := postJSON(cl, base+"/api/v2/repos", fmt.Sprintf(`{"name":"load-%s"}`, strings.ToLower(st.name)), 201, &sp); err != nil {
		return nil, fmt.Errorf("create space: %w", err)
	}
	if err := postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"writer","provider":"mock","model":"mock","repo_id":%q}`, sp.ID), 201, &writer); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	body, err := stateBody(sp.ID, writer.ID, st.items)
	if err != nil {
		return nil, err
	}
	if err := postJSON(cl, base+"/api/v4/chat/commit", body, 201, &cp); err != nil {
		return nil, fmt.Errorf("commit %d items: %w", st.items, err)
	}
	for range n {
		id, err := stateSession(cl, base, st, sp.ID, cp.ID)
		if err != nil {
			return nil, fmt.Errorf("%s session: %w", st.mode, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// stateSession makes one session in space in st's mode: attached to the
// space, mounted on checkpoint, or forked from it.
func stateSession(cl *http.Client, base string, st state, space, checkpoint string) (string, error) {
	var se struct {
		ID string `json:"id"`
	}
	var err error
	switch st.mode {
	case "mounted":
		err = postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"load","provider":"mock","model":"mock","repo_id":%q,"seed_from":%q}`, space, checkpoint), 201, &se)
	case "forked":
		var fork struct {
			ID string `json:"session_id"`
		}
		err = postJSON(cl, base+"/api/v5/lineage/sessions/fork", fmt.Sprintf(`{"space_id":%q,"checkpoint_id":%q,"provider":"mock","model":"mock"}`, space, checkpoint), 201, &fork)
		se.ID = fork.ID
	default:
		err = postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"load","provider":"mock","model":"mock","repo_id":%q}`, space), 201, &se)
	}
	return se.ID, err
}

// prepareTargets makes o.sessions sessions per state, seeds each with
// o.turns turns and checks through the context preview that it sends in
// the state's mode.
func prepareTargets(cl *http.Client, base, sendURL string, o options) ([]target, error) {
	var targets []target
	for _, st := range o.states {
		ids, err := stateSessions(cl, base, st, max(1, o.sessions))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.name, err)
		}
		t := target{name: st.name}
		for _, id := range ids {
			t.bodies = append(t.bodies, fmt.Sprintf(`{"session_id":%q,"provider":"mock","model":"mock","message":"hello there, what should we do next about the plan?"}`, id))
		}
		if o.turns > 0 {
			if err := seed(cl, sendURL, st.name, t.bodies, o.turns); err != nil {
				return nil, err
			}
		}
		var prev struct {
			Mode          string `json:"mode"`
			Turns         int    `json:"turn_count"`
			Dropped       int    `json:"dropped_turns"`
			TokenEstimate int    `json:"token_estimate"`
		}
		for _, body := range t.bodies {
			if err := postJSON(cl, base+"/api/v5/chat/context", body, 200, &prev); err != nil {
				return nil, fmt.Errorf("%s: context preview: %w", st.name, err)
			}
			if want := strings.ToUpper(st.mode); prev.Mode != want {
				return nil, fmt.Errorf("%s: the session sends in %s mode, not %s", st.name, prev.Mode, want)
			}
		}
		fmt.Printf("%s: %s mode, %d history turns in the window, %d older dropped, prompt ~%d tokens\n",
			st.name, prev.Mode, prev.Turns, prev.Dropped, prev.TokenEstimate)
		targets = append(targets, t)
	}
	return targets, nil
}

// seed sends turns/2 exchanges into each session: sixteen clients in all,
// the sessions seeded side by side.
func seed(cl *http.Client, sendURL, name string, bodies []string, turns int) error {
	t0 := time.Now()
	rs := make([]result, len(bodies))
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs[i] = measure(cl, sendURL, body, (turns+1)/2, max(1, 16/len(bodies)))
		}()
	}
	wg.Wait()
	for _, r := range rs {
		if r.errors > 0 {
			return fmt.Errorf("%s: seeding: %d of %d sends failed", name, r.errors, r.n)
		}
	}
	if len(bodies) == 1 {
		fmt.Printf("%s: seeded %d turns through the API in %.1f s\n", name, rs[0].n*2, time.Since(t0).Seconds())
	} else {
		fmt.Printf("%s: seeded %d turns in each of %d sessions through the API in %.1f s\n", name, rs[0].n*2, len(bodies), time.Since(t0).Seconds())
	}
	return nil
}
