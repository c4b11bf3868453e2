package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"smriti"
	"smriti/remote"
	"smriti/wire"
)

// Dial is a remote.Dialer: it reaches another Smriti server as a
// remote.Peer, with token (when set) as its bearer token. A transfer may
// take long, so only the connection and the wait for an answer's first
// byte are bounded, not the whole exchange.
func Dial(baseURL, token string) remote.Peer {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 2 * time.Minute
	c := &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Transport: tr}}
	if token != "" {
		c.Header = http.Header{"Authorization": {"Bearer " + token}}
	}
	return peer{c: c}
}

type peer struct{ c *Client }

func (p peer) Refs(ctx context.Context, space smriti.ID) ([]remote.Head, int64, error) {
	var out wire.SyncRefs
	if err := p.c.get(ctx, "/api/v5/spaces/"+space.String()+"/sync/refs", &out); err != nil {
		return nil, 0, err
	}
	heads := make([]remote.Head, 0, len(out.Heads))
	for _, h := range out.Heads {
		heads = append(heads, remote.Head{Branch: h.Branch, CheckpointID: h.CheckpointID, Hash: h.CommitHash})
	}
	return heads, out.Cursor, nil
}

// open sends a request whose answer is a byte stream, and returns the
// stream (the caller closes it); an error answer is decoded.
func (p peer) open(ctx context.Context, method, path string, body io.Reader, contentType string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, method, p.c.BaseURL+path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, vs := range p.c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := p.c.HTTP.Do(req)
	if err != nil {
		return nil, p.c.unreachable(err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, decodeError(resp.StatusCode, data)
	}
	return resp.Body, nil
}

func (p peer) Fetch(ctx context.Context, space smriti.ID, want remote.Want) (remote.ReadCloser, error) {
	since := want.Since
	body, err := json.Marshal(wire.SyncFetchRequest{Haves: want.Haves, Branches: want.Branches, Since: &since})
	if err != nil {
		return nil, err
	}
	return p.open(ctx, http.MethodPost, "/api/v5/spaces/"+space.String()+"/sync/fetch", bytes.NewReader(body), "application/json")
}

func (p peer) Push(ctx context.Context, space smriti.ID, push remote.Push, body remote.Reader) (remote.Counts, error) {
	q := url.Values{"branch": {push.Branch}, "head": {push.Head}}
	if push.Expect != nil {
		q.Set("expect", *push.Expect)
	}
	rc, err := p.open(ctx, http.MethodPost, "/api/v5/spaces/"+space.String()+"/sync/push?"+q.Encode(), body, "application/gzip")
	if err != nil {
		return remote.Counts{}, err
	}
	defer rc.Close()
	var out wire.SyncPushOut
	if err := json.NewDecoder(rc).Decode(&out); err != nil {
		return remote.Counts{}, fmt.Errorf("decode push answer: %w", err)
	}
	return remote.Counts{Checkpoints: out.Stored.Checkpoints, Sessions: out.Stored.Sessions, Turns: out.Stored.Turns, Skipped: out.Stored.Skipped}, nil
}

func (p peer) Export(ctx context.Context, space smriti.ID) (remote.ReadCloser, error) {
	return p.open(ctx, http.MethodGet, "/api/v5/spaces/"+space.String()+"/export", nil, "")
}

func (p peer) Propose(ctx context.Context, space smriti.ID, base *smriti.ID, d smriti.ProposalDraft) (smriti.ID, error) {
	c := d.Content
	msg := c.Message
	req := wire.ProposalRequest{ContentFields: wire.ContentFields{Message: &msg, Summary: c.Summary, Objective: c.Objective,
		Decisions: c.Decisions, Assumptions: c.Assumptions, Tasks: c.Tasks, OpenQuestions: c.OpenQuestions, Entities: c.Entities,
		Artifacts: c.Artifacts}, Source: "api", AuthorAgent: d.AuthorAgent, AuthorType: d.AuthorType, ProjectRoot: d.ProjectRoot,
		Items: wire.ItemsInOf(d.Items), Model: d.Model}
	if base != nil {
		b := base.String()
		req.BaseCheckpointID = &b
	}
	out, err := p.c.SaveProposal(ctx, space, req)
	if err != nil {
		return smriti.NilID, err
	}
	return out.ID, nil
}

// Remotes lists a space's remotes.
func (c *Client) Remotes(ctx context.Context, space smriti.ID) ([]wire.RemoteOut, error) {
	var out []wire.RemoteOut
	return out, c.get(ctx, "/api/v5/spaces/"+space.String()+"/remotes", &out)
}

// AddRemote adds a remote to a space.
func (c *Client) AddRemote(ctx context.Context, space smriti.ID, req wire.RemoteRequest) (*wire.RemoteOut, error) {
	var out wire.RemoteOut
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/remotes", req, &out)
}

// Remote shows one remote of a space.
func (c *Client) Remote(ctx context.Context, space smriti.ID, name string) (*wire.RemoteOut, error) {
	var out wire.RemoteOut
	return &out, c.get(ctx, "/api/v5/spaces/"+space.String()+"/remotes/"+url.PathEscape(name), &out)
}

// RemoveRemote forgets a remote.
func (c *Client) RemoveRemote(ctx context.Context, space smriti.ID, name string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/api/v5/spaces/"+space.String()+"/remotes/"+url.PathEscape(name), nil, nil)
	return err
}

// Fetch fetches from a remote.
func (c *Client) Fetch(ctx context.Context, space smriti.ID, name string) (*wire.FetchOut, error) {
	var out wire.FetchOut
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/remotes/"+url.PathEscape(name)+"/fetch", map[string]any{}, &out)
}

// Pull pulls from a remote.
func (c *Client) Pull(ctx context.Context, space smriti.ID, name string, req wire.PullRequest) (*wire.PullOut, error) {
	var out wire.PullOut
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/remotes/"+url.PathEscape(name)+"/pull", req, &out)
}

// Push pushes a branch to a remote.
func (c *Client) Push(ctx context.Context, space smriti.ID, name string, req wire.PushRequest) (*wire.PushOut, error) {
	var out wire.PushOut
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/remotes/"+url.PathEscape(name)+"/push", req, &out)
}

// Clone makes a local copy of a space on another server.
func (c *Client) Clone(ctx context.Context, req wire.CloneRequest) (*wire.CloneOut, error) {
	var out wire.CloneOut
	return &out, c.post(ctx, "/api/v5/clone", req, &out)
}

// SetSessionPrivate marks a session private or shared.
func (c *Client) SetSessionPrivate(ctx context.Context, id smriti.ID, private bool) (*wire.SessionPrivateOut, error) {
	var out wire.SessionPrivateOut
	_, err := c.Do(ctx, http.MethodPut, "/api/v5/sessions/"+id.String()+"/private", wire.SessionPrivateRequest{Private: &private}, &out)
	return &out, err
}
