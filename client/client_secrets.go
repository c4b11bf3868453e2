package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"smriti"
	"smriti/secretlog"
	"smriti/wire"
)

// ScanSecrets asks the server for the secrets already stored in a space
// (every space the caller can see when space is nil), calling onFinding for
// each as the server finds it, and returns what the scan read.
func (c *Client) ScanSecrets(ctx context.Context, space *smriti.ID, onFinding func(secretlog.StoredSecret)) (*secretlog.SecretScan, error) {
	path := "/api/v5/secrets/scan"
	if space != nil {
		path += "?space_id=" + url.QueryEscape(space.String())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	// A scan of a large store takes as long as it takes.
	hc := *c.HTTP
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return nil, decodeError(resp.StatusCode, buf.Bytes())
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var name string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		case line == "" && name != "":
			raw := []byte(data.String())
			switch name {
			case "finding":
				var f secretlog.StoredSecret
				if err := json.Unmarshal(raw, &f); err != nil {
					return nil, fmt.Errorf("decode finding: %w", err)
				}
				onFinding(f)
			case "done":
				var out secretlog.SecretScan
				if err := json.Unmarshal(raw, &out); err != nil {
					return nil, fmt.Errorf("decode done event: %w", err)
				}
				return &out, nil
			case "error":
				var e struct {
					Status int    `json:"status"`
					Detail string `json:"detail"`
				}
				json.Unmarshal(raw, &e)
				return nil, &smriti.Error{Code: wire.CodeOf(e.Status), Message: e.Detail}
			}
			name, data = "", strings.Builder{}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read scan stream: %w", err)
	}
	return nil, smriti.Errorf(smriti.EUPSTREAM, "the scan stream ended without a done event")
}

// PurgeSecrets purges a stored secret from a space: every value rule finds,
// or the one value with fingerprint (see App.PurgeSecrets).
func (c *Client) PurgeSecrets(ctx context.Context, space smriti.ID, rule, fingerprint string, full bool) (*secretlog.SecretPurge, error) {
	var out secretlog.SecretPurge
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/secrets/purge", wire.SecretPurgeRequest{Rule: rule, Fingerprint: fingerprint, Full: full}, &out)
}

// AllowSecret keeps one value that only looks like a secret in a space.
func (c *Client) AllowSecret(ctx context.Context, space smriti.ID, rule, fingerprint string) (*secretlog.SecretAllow, error) {
	var out secretlog.SecretAllow
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/secrets/allowlist", wire.SecretAllowRequest{Rule: rule, Fingerprint: fingerprint}, &out)
}

// SecretAllowlist lists the values a space keeps although they look like
// secrets.
func (c *Client) SecretAllowlist(ctx context.Context, space smriti.ID) ([]secretlog.SecretAllow, error) {
	var out []secretlog.SecretAllow
	return out, c.get(ctx, "/api/v5/spaces/"+space.String()+"/secrets/allowlist", &out)
}

// RemoveSecretAllow takes a value off a space's allowlist.
func (c *Client) RemoveSecretAllow(ctx context.Context, space smriti.ID, rule, fingerprint string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/api/v5/spaces/"+space.String()+"/secrets/allowlist/"+url.PathEscape(rule)+"/"+url.PathEscape(fingerprint), nil, nil)
	return err
}
