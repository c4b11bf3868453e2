package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"smriti/wire"
	"strings"

	"smriti"
)

// Send sends a message. idempotencyKey may be "".
func (c *Client) Send(ctx context.Context, req wire.SendRequest, idempotencyKey string) (*wire.SendResponse, error) {
	var out wire.SendResponse
	cl := *c
	if idempotencyKey != "" {
		cl.Header = c.Header.Clone()
		if cl.Header == nil {
			cl.Header = http.Header{}
		}
		cl.Header.Set("Idempotency-Key", idempotencyKey)
	}
	_, err := cl.Do(ctx, http.MethodPost, "/api/v4/chat/send", req, &out)
	return &out, err
}

// PreviewContext shows what a send would give the model.
func (c *Client) PreviewContext(ctx context.Context, req wire.SendRequest) (*wire.ContextPreview, error) {
	var out wire.ContextPreview
	return &out, c.post(ctx, "/api/v5/chat/context", req, &out)
}

// ProviderStatus reads the provider configuration status.
func (c *Client) ProviderStatus(ctx context.Context) (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	return out, c.get(ctx, "/api/v4/chat/providers", &out)
}

// StreamEvent is one server-sent event of a streamed send.
type StreamEvent struct {
	Event string
	Data  json.RawMessage
}

// SendStream sends a message and calls onEvent for every event as it
// arrives. It returns the final "done" answer, or the error an "error" event
// carried.
func (c *Client) SendStream(ctx context.Context, req wire.SendRequest, onEvent func(StreamEvent)) (*wire.SendResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/api/v5/chat/send/stream", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	for k, vs := range c.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	resp, err := c.HTTP.Do(hreq)
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
	sc.Buffer(make([]byte, 64*1024), 8<<20)
	var ev StreamEvent
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		case line == "":
			if ev.Event == "" {
				continue
			}
			ev.Data = json.RawMessage(data.String())
			if onEvent != nil {
				onEvent(ev)
			}
			switch ev.Event {
			case "done":
				var out wire.SendResponse
				if err := json.Unmarshal(ev.Data, &out); err != nil {
					return nil, fmt.Errorf("decode done event: %w", err)
				}
				return &out, nil
			case "error":
				var e struct {
					Status int    `json:"status"`
					Detail string `json:"detail"`
				}
				json.Unmarshal(ev.Data, &e)
				return nil, &smriti.Error{Code: wire.CodeOf(e.Status), Message: e.Detail}
			}
			ev, data = StreamEvent{}, strings.Builder{}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stream: %w", err)
	}
	return nil, smriti.Errorf(smriti.EUPSTREAM, "the stream ended without a done event")
}

// Mount mounts a checkpoint on a session; base nil means "from now on".
func (c *Client) Mount(ctx context.Context, session, checkpoint smriti.ID, base *int64) (*wire.SessionOut, error) {
	var out wire.SessionOut
	id := checkpoint.String()
	_, err := c.Do(ctx, http.MethodPut, "/api/v5/chat/sessions/"+session.String()+"/mount", wire.MountRequest{CheckpointID: &id, HistoryBaseSeq: base}, &out)
	return &out, err
}

// Unmount ends a session's mount.
func (c *Client) Unmount(ctx context.Context, session smriti.ID) (*wire.SessionOut, error) {
	var out wire.SessionOut
	_, err := c.Do(ctx, http.MethodDelete, "/api/v5/chat/sessions/"+session.String()+"/mount", nil, &out)
	return &out, err
}
