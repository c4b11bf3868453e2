package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"smriti/wire"
	"strconv"

	"smriti"
)

// StateOptions narrow a state brief request.
type StateOptions struct {
	// Since is the checkpoint last seen: the brief says what changed on
	// main since.
	Since *smriti.ID
	// Session is the asking session: the brief shows its mount.
	Session *smriti.ID
}

func (o StateOptions) query(v url.Values) {
	if o.Since != nil {
		v.Set("since_commit_id", o.Since.String())
	}
	if o.Session != nil {
		v.Set("session_id", o.Session.String())
	}
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// State reads a space's state brief. Render it with
// smriti.RenderBrief(st.Brief(), opts).
func (c *Client) State(ctx context.Context, space smriti.ID, o StateOptions) (*wire.SpaceState, error) {
	v := url.Values{}
	o.query(v)
	var out wire.SpaceState
	return &out, c.get(ctx, withQuery("/api/v4/chat/spaces/"+space.String()+"/state", v), &out)
}

// BriefOptions choose how the server renders the brief.
type BriefOptions struct {
	StateOptions
	Compact bool
	Preview bool
	Stats   bool
	// Budget, when positive, keeps the brief within that many tokens.
	Budget int
	// Prime asks for the text `smriti prime` prints (usage and brief).
	Prime bool
	// MainOnly leaves out branches, claims, divergence and freshness.
	MainOnly bool
	// Home is shown as ~ at the start of paths.
	Home string
	// Reserve keeps that many tokens of the budget free for what the
	// caller adds; MaxChars, when positive, shrinks the budget until the
	// brief takes at most that many characters (UTF-16 code units).
	Reserve, MaxChars int
}

// Brief fetches the state brief rendered as markdown by the server.
func (c *Client) Brief(ctx context.Context, space smriti.ID, o BriefOptions) (string, error) {
	v := url.Values{"format": {"markdown"}}
	o.query(v)
	if o.Compact {
		v.Set("compact", "true")
	}
	if o.Budget > 0 {
		v.Set("budget", strconv.Itoa(o.Budget))
	}
	if o.Preview {
		v.Set("preview", "true")
	}
	if o.Stats {
		v.Set("stats", "true")
	}
	for name, on := range map[string]bool{"prime": o.Prime, "main_only": o.MainOnly} {
		if on {
			v.Set(name, "true")
		}
	}
	if o.Home != "" {
		v.Set("home", o.Home)
	}
	if o.Reserve > 0 {
		v.Set("reserve", strconv.Itoa(o.Reserve))
	}
	if o.MaxChars > 0 {
		v.Set("max_chars", strconv.Itoa(o.MaxChars))
	}
	return c.getText(ctx, withQuery("/api/v5/spaces/"+space.String()+"/brief", v))
}

// getText GETs a plain-text answer.
func (c *Client) getText(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
	if err != nil {
		return "", err
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", c.unreachable(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode >= 400 {
		return "", decodeError(resp.StatusCode, data)
	}
	return string(data), nil
}

// Claim declares work in a space. The answer lists the live claims it
// collides with; it is stored either way.
func (c *Client) Claim(ctx context.Context, req wire.ClaimRequest) (*wire.ClaimCreated, error) {
	var out wire.ClaimCreated
	return &out, c.write(ctx, "/api/v5/claims", req, &out)
}

// ClaimsOptions narrow a claims list.
type ClaimsOptions struct {
	IncludeExpired bool
	// Limit and After page the list; without Limit every claim up to the
	// server's cap comes back.
	Limit int
	After string
}

// Claims lists a space's claims, newest first, and the cursor of the next
// page ("" when there is none).
func (c *Client) Claims(ctx context.Context, space smriti.ID, o ClaimsOptions) ([]wire.ClaimOut, string, error) {
	v := url.Values{"space_id": {space.String()}}
	if o.IncludeExpired {
		v.Set("include_expired", "true")
	}
	if o.Limit > 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.After != "" {
		v.Set("after", o.After)
	}
	var out []wire.ClaimOut
	resp, err := c.Do(ctx, http.MethodGet, withQuery("/api/v5/claims", v), nil, &out)
	if err != nil {
		return nil, "", err
	}
	return out, resp.Header.Get("X-Next-Cursor"), nil
}

// FinishClaim marks a claim done or abandoned.
func (c *Client) FinishClaim(ctx context.Context, id smriti.ID, status string) (*wire.ClaimOut, error) {
	var out wire.ClaimOut
	_, err := c.Do(ctx, http.MethodPatch, "/api/v5/claims/"+id.String(), wire.ClaimPatchRequest{Status: &status}, &out)
	return &out, err
}

// SpaceMetrics reads a space's metrics.
func (c *Client) SpaceMetrics(ctx context.Context, space smriti.ID) (*wire.SpaceMetricsOut, error) {
	var out wire.SpaceMetricsOut
	return &out, c.get(ctx, "/api/v5/metrics/spaces/"+space.String(), &out)
}

// OpenWorktree opens a git worktree for an agent.
func (c *Client) OpenWorktree(ctx context.Context, req wire.WorktreeRequest) (*wire.WorktreeOut, error) {
	var out wire.WorktreeOut
	return &out, c.post(ctx, "/api/v5/worktrees", req, &out)
}

// Worktrees lists a space's worktrees with their drift.
func (c *Client) Worktrees(ctx context.Context, space smriti.ID, includeClosed bool) ([]wire.WorktreeListItem, error) {
	v := url.Values{"space_id": {space.String()}}
	if includeClosed {
		v.Set("include_closed", "true")
	}
	var out []wire.WorktreeListItem
	return out, c.get(ctx, withQuery("/api/v5/worktrees", v), &out)
}

// Worktree gets a worktree by id or id prefix (at least 4 characters).
func (c *Client) Worktree(ctx context.Context, idOrPrefix string) (*wire.WorktreeOut, error) {
	var out wire.WorktreeOut
	return &out, c.get(ctx, "/api/v5/worktrees/"+url.PathEscape(idOrPrefix), &out)
}

// CloseWorktree removes a worktree; force drops uncommitted changes.
func (c *Client) CloseWorktree(ctx context.Context, idOrPrefix string, force bool) (*wire.WorktreeOut, error) {
	path := "/api/v5/worktrees/" + url.PathEscape(idOrPrefix)
	if force {
		path += "?force=true"
	}
	var out wire.WorktreeOut
	_, err := c.Do(ctx, http.MethodDelete, path, nil, &out)
	return &out, err
}

// ContextPack exports a checkpoint for another tool (smriti.PackTargets).
func (c *Client) ContextPack(ctx context.Context, checkpoint smriti.ID, target string) (*wire.ContextPack, error) {
	id := checkpoint.String()
	var out wire.ContextPack
	return &out, c.post(ctx, "/api/v2/context/from-commit", wire.ContextPackRequest{CommitID: &id, Target: &target}, &out)
}

// ParentDelta returns a checkpoint beside its parent (Parent nil for a root).
func (c *Client) ParentDelta(ctx context.Context, checkpoint smriti.ID) (*wire.ParentDelta, error) {
	var out wire.ParentDelta
	return &out, c.get(ctx, "/api/v2/context/parent-delta/"+checkpoint.String(), &out)
}

// ReadyTasks reads a space's ready queue (limit 0: all of it).
func (c *Client) ReadyTasks(ctx context.Context, space smriti.ID, limit int) (*wire.ReadyList, error) {
	path := "/api/v5/spaces/" + space.String() + "/ready"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out wire.ReadyList
	_, err := c.Do(ctx, http.MethodGet, path, nil, &out)
	return &out, err
}

// ClaimReady claims the first ready task of a space.
func (c *Client) ClaimReady(ctx context.Context, space smriti.ID, req wire.ReadyClaimRequest) (*wire.ReadyClaimed, error) {
	var out wire.ReadyClaimed
	return &out, c.write(ctx, "/api/v5/spaces/"+space.String()+"/ready/claim", req, &out)
}

// HeartbeatClaim renews a live claim's lease ("" ttl: its original length).
func (c *Client) HeartbeatClaim(ctx context.Context, id smriti.ID, ttl string) (*wire.ClaimOut, error) {
	req := wire.HeartbeatRequest{}
	if ttl != "" {
		req.TTL = &ttl
	}
	var out wire.ClaimOut
	return &out, c.post(ctx, "/api/v5/claims/"+id.String()+"/heartbeat", req, &out)
}

// StateAsOf reads a space's state as of a checkpoint (id or hash prefix)
// or a time (RFC 3339 or YYYY-MM-DD), on branch ("" for main, or the
// checkpoint's own branch).
func (c *Client) StateAsOf(ctx context.Context, space smriti.ID, asOf, branch string) (*wire.StateAsOfOut, error) {
	v := url.Values{"as_of": {asOf}}
	if branch != "" {
		v.Set("branch", branch)
	}
	var out wire.StateAsOfOut
	return &out, c.get(ctx, withQuery("/api/v5/spaces/"+space.String()+"/state", v), &out)
}
