package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
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

// stateSession makes the session a state sends in and returns its id.
func stateSession(cl *http.Client, base string, st state) (string, error) {
	var se struct {
		ID string `json:"id"`
	}
	if st.mode == "fresh" {
		err := postJSON(cl, base+"/api/v4/chat/sessions", `{"title":"load","provider":"mock","model":"mock"}`, 201, &se)
		return se.ID, err
	}
	var sp, writer, cp struct {
		ID string `json:"id"`
	}
	if err := postJSON(cl, base+"/api/v2/repos", fmt.Sprintf(`{"name":"load-%s"}`, strings.ToLower(st.name)), 201, &sp); err != nil {
		return "", fmt.Errorf("create space: %w", err)
	}
	if err := postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"writer","provider":"mock","model":"mock","repo_id":%q}`, sp.ID), 201, &writer); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	body, err := stateBody(sp.ID, writer.ID, st.items)
	if err != nil {
		return "", err
	}
	if err := postJSON(cl, base+"/api/v4/chat/commit", body, 201, &cp); err != nil {
		return "", fmt.Errorf("commit %d items: %w", st.items, err)
	}
	switch st.mode {
	case "mounted":
		err = postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"load","provider":"mock","model":"mock","repo_id":%q,"seed_from":%q}`, sp.ID, cp.ID), 201, &se)
	case "forked":
		var fork struct {
			ID string `json:"session_id"`
		}
		err = postJSON(cl, base+"/api/v5/lineage/sessions/fork", fmt.Sprintf(`{"space_id":%q,"checkpoint_id":%q,"provider":"mock","model":"mock"}`, sp.ID, cp.ID), 201, &fork)
		se.ID = fork.ID
	default:
		err = postJSON(cl, base+"/api/v4/chat/sessions", fmt.Sprintf(`{"title":"load","provider":"mock","model":"mock","repo_id":%q}`, sp.ID), 201, &se)
	}
	if err != nil {
		return "", fmt.Errorf("%s session: %w", st.mode, err)
	}
	return se.ID, nil
}
