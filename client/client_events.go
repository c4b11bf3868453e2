package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"smriti/wire"
	"strconv"
	"strings"

	"smriti"
)

// SpaceEvents subscribes to a space's live events and calls onEvent for each
// until ctx ends, the server closes the stream, or onEvent returns false.
// after (when non-nil) resumes after that log position, sent as the
// Last-Event-ID header the way a browser reconnects. It returns the
// position of the last event delivered (or the one it started after).
func (c *Client) SpaceEvents(ctx context.Context, space smriti.ID, after *int64, onEvent func(wire.SpaceEventOut) bool) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/api/v5/spaces/"+space.String()+"/events", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	var last int64
	if after != nil {
		last = *after
		req.Header.Set("Last-Event-ID", strconv.FormatInt(*after, 10))
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	// The stream is long-lived: no whole-request timeout.
	hc := *c.HTTP
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return last, c.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return last, decodeError(resp.StatusCode, buf.Bytes())
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		case line == "" && data.Len() > 0:
			var ev wire.SpaceEventOut
			if err := json.Unmarshal([]byte(data.String()), &ev); err != nil {
				return last, fmt.Errorf("decode space event: %w", err)
			}
			data.Reset()
			last = ev.Position
			if !onEvent(ev) {
				return last, nil
			}
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return last, fmt.Errorf("read event stream: %w", err)
	}
	return last, nil
}
