package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"smriti/wire"
	"strings"
	"time"

	"smriti"
)

// Client speaks to a Smriti server. The CLI and the MCP server use it, and
// the HTTP tests drive the server through it, so the API and its client are
// tested together. Errors come back as *smriti.Error with the domain code
// that matches the HTTP status and the server's detail message.
type Client struct {
	BaseURL string
	HTTP    *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// AutoIdempotencyKeys gives every creating write (checkpoint commit,
	// fork, claim, note, merge, import) a new Idempotency-Key when its
	// context carries none (see WithIdempotencyKey), and sends a keyed
	// write again after a network error or a 503/409 with Retry-After.
	AutoIdempotencyKeys bool
}

// NewClient returns a client for the server at baseURL. When SMRITI_TOKEN
// is set, every request carries it as "Authorization: Bearer", so the CLI
// and MCP reach a server in auth mode with no further setup.
func NewClient(baseURL string) *Client {
	c := &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Timeout: 5 * time.Minute}}
	if token := strings.TrimSpace(os.Getenv("SMRITI_TOKEN")); token != "" {
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
	}
	return c
}

// unreachable is the error for a request that never got an answer, with
// the next step in its message once, for the CLI and MCP alike.
func (c *Client) unreachable(err error) error {
	return smriti.Errorf(smriti.EUNAVAILABLE, "cannot reach the Smriti server at %s: %v (is `smriti serve` running? set SMRITI_API_URL to point elsewhere)", c.BaseURL, err)
}

// Do sends a request with an optional JSON body and decodes a JSON answer
// into out (when out is non-nil). It is exported for endpoints without a
// typed method and for tests that send deliberately malformed bodies.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) (*http.Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if k := idempotencyKey(ctx); k != "" {
		req.Header.Set("Idempotency-Key", k)
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode >= 400 {
		err := decodeError(resp.StatusCode, data)
		if e := (*smriti.Error)(nil); resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" && errors.As(err, &e) {
			e.Code = smriti.ETRYAGAIN
		}
		return resp, err
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp, fmt.Errorf("decode %s %s response: %w", method, path, err)
		}
	}
	return resp, nil
}

// decodeError turns an error answer back into the domain error.
func decodeError(status int, data []byte) error {
	var body struct {
		Detail    json.RawMessage        `json:"detail"`
		Conflicts []smriti.MergeConflict `json:"conflicts"`
	}
	e := &smriti.Error{Code: wire.CodeOf(status)}
	if json.Unmarshal(data, &body) == nil && body.Conflicts != nil {
		// A commit whose change conflicts with the head's (see
		// smriti.CommitConflict).
		var cc smriti.CommitConflict
		if json.Unmarshal(data, &cc) == nil {
			e.Message, e.Data = cc.Message, &cc
			return e
		}
	}
	if json.Unmarshal(data, &body) == nil && len(body.Detail) > 0 {
		var msg string
		if json.Unmarshal(body.Detail, &msg) == nil {
			e.Message = msg
		} else {
			var obj map[string]any
			if json.Unmarshal(body.Detail, &obj) == nil {
				e.Data = obj
				if m, ok := obj["message"].(string); ok {
					e.Message = m
				}
			}
		}
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("server answered %d %s", status, http.StatusText(status))
	}
	return e
}

func (c *Client) get(ctx context.Context, path string, out any) error {
	_, err := c.Do(ctx, http.MethodGet, path, nil, out)
	return err
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	_, err := c.Do(ctx, http.MethodPost, path, body, out)
	return err
}

// Health reads /health.
func (c *Client) Health(ctx context.Context) (*wire.Health, error) {
	var h wire.Health
	return &h, c.get(ctx, "/health", &h)
}

// CreateSpace creates a space from req (its name; optionally its
// description, project root and metadata).
func (c *Client) CreateSpace(ctx context.Context, req wire.SpaceCreateRequest) (*wire.Repo, error) {
	var out wire.Repo
	return &out, c.post(ctx, "/api/v2/repos", req, &out)
}

// Spaces lists spaces.
func (c *Client) Spaces(ctx context.Context) ([]wire.Repo, error) {
	var out []wire.Repo
	return out, c.get(ctx, "/api/v2/repos", &out)
}

// Space gets a space.
func (c *Client) Space(ctx context.Context, id smriti.ID) (*wire.Repo, error) {
	var out wire.Repo
	return &out, c.get(ctx, "/api/v2/repos/"+id.String(), &out)
}

// DeleteSpace deletes a space.
func (c *Client) DeleteSpace(ctx context.Context, id smriti.ID) error {
	_, err := c.Do(ctx, http.MethodDelete, "/api/v2/repos/"+id.String(), nil, nil)
	return err
}

// SetProjectRoot sets a space's project root.
func (c *Client) SetProjectRoot(ctx context.Context, id smriti.ID, root string) (*wire.Repo, error) {
	var out wire.Repo
	_, err := c.Do(ctx, http.MethodPatch, "/api/v2/repos/"+id.String()+"/project-root", map[string]any{"project_root": root}, &out)
	return &out, err
}

// Checkpoints lists a space's checkpoints, newest first; branch "" means all.
func (c *Client) Checkpoints(ctx context.Context, space smriti.ID, branch string) ([]wire.Commit, error) {
	var out []wire.Commit
	path := "/api/v2/repos/" + space.String() + "/commits"
	if branch != "" {
		path += "?branch=" + url.QueryEscape(branch)
	}
	return out, c.get(ctx, path, &out)
}

// LatestCheckpoint returns the newest checkpoint of a branch ("" = main).
func (c *Client) LatestCheckpoint(ctx context.Context, space smriti.ID, branch string) (*wire.Commit, error) {
	var out wire.Commit
	path := "/api/v2/repos/" + space.String() + "/commits/latest"
	if branch != "" {
		path += "?branch=" + url.QueryEscape(branch)
	}
	return &out, c.get(ctx, path, &out)
}

// HeadCitingCode returns the items of main's newest checkpoint of the
// space that cite code: what a client checks against its work tree, in one
// request (nil when the server does not list them). Only the items are
// decoded: the rest of the checkpoint, every item's text among it, is
// skipped, so a command that only checks stays as light as one that does
// not.
func (c *Client) HeadCitingCode(ctx context.Context, space smriti.ID) ([]wire.ItemOut, error) {
	var out struct {
		Items json.RawMessage `json:"items"`
	}
	if err := c.get(ctx, "/api/v2/repos/"+space.String()+"/commits/latest?items=true&cites_code=true", &out); err != nil {
		return nil, err
	}
	// Most heads cite no code: "[]" needs no item type set up to read.
	if t := bytes.TrimSpace(out.Items); len(t) == 0 || bytes.Equal(t, []byte("null")) || bytes.Equal(t, []byte("[]")) {
		return nil, nil
	}
	var items []wire.ItemOut
	if err := json.Unmarshal(out.Items, &items); err != nil {
		return nil, fmt.Errorf("decode the head's items: %w", err)
	}
	return items, nil
}

// Commit saves a checkpoint from a session.
func (c *Client) Commit(ctx context.Context, req wire.CommitRequest) (*wire.Commit, error) {
	var out wire.Commit
	return &out, c.write(ctx, "/api/v4/chat/commit", req, &out)
}

// CommitToSpace writes a checkpoint onto main's head with no session.
func (c *Client) CommitToSpace(ctx context.Context, space smriti.ID, req wire.SpaceCommitRequest) (*wire.Commit, error) {
	var out wire.Commit
	return &out, c.write(ctx, "/api/v5/spaces/"+space.String()+"/checkpoints", req, &out)
}

// CreateCheckpoint creates a checkpoint with an explicit parent (legacy).
func (c *Client) CreateCheckpoint(ctx context.Context, req wire.LegacyCommitRequest) (*wire.Commit, error) {
	var out wire.Commit
	return &out, c.write(ctx, "/api/v2/commits", req, &out)
}

// ResolveCheckpoint finds the checkpoint ref names (a full UUID, or 7+
// characters of its hash or id), among one space's when space is set.
func (c *Client) ResolveCheckpoint(ctx context.Context, ref string, space *smriti.ID) (*wire.Commit, error) {
	q := url.Values{"ref": {ref}}
	if space != nil {
		q.Set("space_id", space.String())
	}
	var out wire.Commit
	return &out, c.get(ctx, "/api/v5/checkpoints/resolve?"+q.Encode(), &out)
}

// Checkpoint gets a checkpoint.
func (c *Client) Checkpoint(ctx context.Context, id smriti.ID) (*wire.Commit, error) {
	var out wire.Commit
	return &out, c.get(ctx, "/api/v2/commits/"+id.String(), &out)
}

// DeleteCheckpoint deletes a checkpoint; a refusal is ECONFLICT with the
// dependents in the error's Data.
func (c *Client) DeleteCheckpoint(ctx context.Context, id smriti.ID, cascade bool) error {
	path := "/api/v2/commits/" + id.String()
	if cascade {
		path += "?cascade=true"
	}
	_, err := c.Do(ctx, http.MethodDelete, path, nil, nil)
	return err
}

// AddNote annotates a checkpoint.
func (c *Client) AddNote(ctx context.Context, id smriti.ID, text, author, kind string) (*wire.NoteOut, error) {
	var out wire.NoteOut
	return &out, c.write(ctx, "/api/v5/checkpoint/"+id.String()+"/notes", map[string]any{"text": text, "author": author, "kind": kind}, &out)
}

// Verify recomputes a checkpoint's hash chain.
func (c *Client) Verify(ctx context.Context, id smriti.ID) (*wire.Verification, error) {
	var out wire.Verification
	return &out, c.get(ctx, "/api/v5/checkpoints/"+id.String()+"/verify", &out)
}

// CreateSession creates a session (space nil for an unattached one).
func (c *Client) CreateSession(ctx context.Context, space *smriti.ID, title, provider, model string) (*wire.SessionOut, error) {
	req := map[string]any{"title": title, "provider": provider, "model": model}
	if space != nil {
		req["repo_id"] = space.String()
	}
	var out wire.SessionOut
	return &out, c.post(ctx, "/api/v4/chat/sessions", req, &out)
}

// Sessions lists recent sessions.
func (c *Client) Sessions(ctx context.Context) ([]wire.SessionOut, error) {
	var out []wire.SessionOut
	return out, c.get(ctx, "/api/v4/chat/sessions", &out)
}

// Session gets a session.
func (c *Client) Session(ctx context.Context, id smriti.ID) (*wire.SessionOut, error) {
	var out wire.SessionOut
	return &out, c.get(ctx, "/api/v4/chat/sessions/"+id.String(), &out)
}

// DeleteSession deletes a session.
func (c *Client) DeleteSession(ctx context.Context, id smriti.ID) error {
	_, err := c.Do(ctx, http.MethodDelete, "/api/v4/chat/sessions/"+id.String(), nil, nil)
	return err
}

// Turns lists a session's turns (the first page of up to 1000).
func (c *Client) Turns(ctx context.Context, id smriti.ID) ([]wire.TurnOut, error) {
	var out []wire.TurnOut
	return out, c.get(ctx, "/api/v4/chat/sessions/"+id.String()+"/turns", &out)
}

// AllTurns pages through every turn of a session.
func (c *Client) AllTurns(ctx context.Context, id smriti.ID) ([]wire.TurnOut, error) {
	var all []wire.TurnOut
	path := "/api/v4/chat/sessions/" + id.String() + "/turns"
	next := ""
	for {
		var page []wire.TurnOut
		p := path
		if next != "" {
			p += "?after=" + url.QueryEscape(next)
		}
		resp, err := c.Do(ctx, http.MethodGet, p, nil, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		next = resp.Header.Get("X-Next-Cursor")
		if next == "" {
			return all, nil
		}
	}
}

// Attach attaches a session to a space.
func (c *Client) Attach(ctx context.Context, session, space smriti.ID) (*wire.SessionOut, error) {
	var out wire.SessionOut
	_, err := c.Do(ctx, http.MethodPut, "/api/v4/chat/sessions/"+session.String()+"/attach", map[string]any{"repo_id": space.String()}, &out)
	return &out, err
}

// Head returns a space's main head and latest session.
func (c *Client) Head(ctx context.Context, space smriti.ID) (*wire.Head, error) {
	var out wire.Head
	return &out, c.get(ctx, "/api/v4/chat/spaces/"+space.String()+"/head", &out)
}

// CheckpointItems returns a checkpoint's items view.
func (c *Client) CheckpointItems(ctx context.Context, id smriti.ID) ([]wire.ItemOut, error) {
	var out []wire.ItemOut
	return out, c.get(ctx, "/api/v5/checkpoints/"+id.String()+"/items", &out)
}

// CodeCitingItems returns the checkpoint's items that cite code.
func (c *Client) CodeCitingItems(ctx context.Context, id smriti.ID) ([]wire.ItemOut, error) {
	var out []wire.ItemOut
	return out, c.get(ctx, "/api/v5/checkpoints/"+id.String()+"/items?cites_code=true", &out)
}

// ItemHistory returns an item's history in a space.
func (c *Client) ItemHistory(ctx context.Context, space smriti.ID, itemID string) (*wire.ItemHistoryOut, error) {
	var out wire.ItemHistoryOut
	return &out, c.get(ctx, "/api/v5/spaces/"+space.String()+"/items/"+url.PathEscape(itemID), &out)
}
