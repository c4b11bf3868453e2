package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"smriti/wire"
	"strconv"

	"smriti"
)

// ImportTranscript sends a transcript file to be imported into a space.
func (c *Client) ImportTranscript(ctx context.Context, spaceID smriti.ID, filename string, file io.Reader, draft bool) (*wire.TranscriptImportResponse, error) {
	q := url.Values{"space_id": {spaceID.String()}, "filename": {filename}}
	if draft {
		q.Set("draft", "true")
	}
	var out wire.TranscriptImportResponse
	if err := c.writeFile(ctx, "/api/v5/import/transcript?"+q.Encode(), file, "application/octet-stream", &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ImportAgentTranscript sends a coding agent's JSON Lines transcript
// (format claude-code or codex) to be appended to the space's session for
// that agent session; sessionKey names the agent session when the file
// does not ("" to take it from the file).
func (c *Client) ImportAgentTranscript(ctx context.Context, spaceID smriti.ID, format, filename, sessionKey string, file io.Reader) (*wire.TranscriptImportResponse, error) {
	q := url.Values{"space_id": {spaceID.String()}, "filename": {filename}, "format": {format}}
	if sessionKey != "" {
		q.Set("session_key", sessionKey)
	}
	var out wire.TranscriptImportResponse
	if err := c.writeFile(ctx, "/api/v5/import/transcript?"+q.Encode(), file, "application/octet-stream", &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ExportSpace writes the space's bundle to w.
func (c *Client) ExportSpace(ctx context.Context, spaceID smriti.ID, w io.Writer) error {
	return c.stream(ctx, http.MethodGet, "/api/v5/spaces/"+spaceID.String()+"/export", nil, "", w)
}

// ImportSpace sends a bundle to be recreated as a space.
func (c *Client) ImportSpace(ctx context.Context, bundle io.Reader, asNew bool) (*wire.SpaceImportResponse, error) {
	path := "/api/v5/spaces/import"
	if asNew {
		path += "?as_new=true"
	}
	var out wire.SpaceImportResponse
	if err := c.writeFile(ctx, path, bundle, "application/gzip", &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SearchParams are the search's query parameters.
type SearchParams struct {
	Q       string
	SpaceID *smriti.ID
	Kinds   []string
	Branch  string
	Limit   int
}

// Search runs a full-text search.
func (c *Client) Search(ctx context.Context, p SearchParams) (*wire.SearchResponse, error) {
	q := url.Values{"q": {p.Q}}
	if p.SpaceID != nil {
		q.Set("space_id", p.SpaceID.String())
	}
	for _, k := range p.Kinds {
		q.Add("kind", k)
	}
	if p.Branch != "" {
		q.Set("branch", p.Branch)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out wire.SearchResponse
	if _, err := c.Do(ctx, http.MethodGet, "/api/v5/search?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// stream sends body as is (not JSON-encoded) and either decodes a JSON
// answer into out or, when out is an io.Writer, copies the answer to it.
func (c *Client) stream(ctx context.Context, method, path string, body io.Reader, contentType string, out any) error {
	_, err := c.streamResp(ctx, method, path, body, contentType, out)
	return err
}

// streamResp is stream that also returns the answer's head (nil when none
// came).
func (c *Client) streamResp(ctx context.Context, method, path string, body io.Reader, contentType string, out any) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
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
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp, decodeError(resp.StatusCode, data)
	}
	switch o := out.(type) {
	case nil:
		return resp, nil
	case io.Writer:
		if _, err := io.Copy(o, resp.Body); err != nil {
			return resp, fmt.Errorf("read %s %s response: %w", method, path, err)
		}
		return resp, nil
	default:
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return resp, fmt.Errorf("decode %s %s response: %w", method, path, err)
		}
		return resp, nil
	}
}
