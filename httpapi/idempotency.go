package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"smriti"
	"smriti/app"
)

// writeIdempotencyHeader documents the Idempotency-Key of the creating
// writes other than sends; app.Idempotent holds the rule.
var writeIdempotencyHeader = map[string]string{"Idempotency-Key": "Makes a retried write safe (or send client_request_id in a JSON body): " +
	"the same key with the same request returns the first answer (same status, body and ids; header Idempotent-Replayed: true) " +
	"without writing again, for 24 hours by default; with a different request it is refused with 422. " +
	"Keys are scoped to the caller and to this route. While the first request with the key is still being answered, " +
	"a concurrent one waits up to a second for its answer, then gets 409 with Retry-After"}

// idempotentRoutes marks the creating writes that take an Idempotency-Key.
func idempotentRoutes(routes []route, s *Server) {
	for i := range routes {
		rt := &routes[i]
		if !rt.idempotent {
			continue
		}
		h := map[string]string{}
		for k, v := range rt.headers {
			h[k] = v
		}
		for k, v := range writeIdempotencyHeader {
			h[k] = v
		}
		rt.headers = h
		if !slices.Contains(rt.errors, http.StatusConflict) {
			rt.errors = append(slices.Clone(rt.errors), http.StatusConflict)
		}
		if !slices.Contains(rt.errors, http.StatusUnprocessableEntity) {
			rt.errors = append(rt.errors, http.StatusUnprocessableEntity)
		}
		rt.handle = s.idempotently(*rt)
	}
}

var keyPathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// idempotently wraps a creating write's handler: with a key (header, or
// client_request_id in a JSON body) the handler runs through app.Idempotent
// with its answer buffered, so that it can be stored and replayed. The
// request compared on a retry is the path parameters, the query and the
// body (a JSON body without client_request_id, canonically re-encoded; a
// file body by its SHA-256).
func (s *Server) idempotently(rt route) func(w http.ResponseWriter, r *http.Request) error {
	kind := rt.method + " " + rt.path
	var params []string
	for _, m := range keyPathParam.FindAllStringSubmatch(rt.path, -1) {
		params = append(params, m[1])
	}
	inner := rt.handle
	return func(w http.ResponseWriter, r *http.Request) error {
		key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
		var body []byte
		if len(rt.files) > 0 {
			if key == "" {
				return inner(w, r)
			}
			sum, cleanup, err := s.spoolBody(w, r)
			if err != nil {
				return err
			}
			defer cleanup()
			body = sum
		} else {
			raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.bodyLimit))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					return smriti.Errorf(smriti.ETOOLARGE, "request body is larger than the %d-byte limit", tooBig.Limit)
				}
				return smriti.Errorf(smriti.EINVALID, "could not read the request body: %v", err)
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			var obj map[string]json.RawMessage
			body = raw
			if json.Unmarshal(raw, &obj) == nil && obj != nil {
				if v, ok := obj["client_request_id"]; ok {
					var id string
					if json.Unmarshal(v, &id) == nil && key == "" {
						key = strings.TrimSpace(id)
					}
					delete(obj, "client_request_id")
				}
				if v, ok := obj["dry_run"]; ok && string(v) == "true" {
					// A preview writes nothing: there is nothing to replay.
					return inner(w, r)
				}
				body, _ = json.Marshal(obj) // sorted keys: one form per request
			}
			if key == "" {
				return inner(w, r)
			}
		}
		var req bytes.Buffer
		for _, p := range params {
			req.WriteString(p + "=" + r.PathValue(p) + "\x00")
		}
		req.WriteString(r.URL.Query().Encode() + "\x00")
		req.Write(body)
		ans, err := s.app.Idempotent(r.Context(), app.IdempotentWrite{Kind: kind, Key: key, Request: req.Bytes()},
			func(ctx context.Context) (app.IdempotentAnswer, error) {
				rec := &bufferedAnswer{header: http.Header{}}
				if err := inner(rec, r.WithContext(ctx)); err != nil {
					return app.IdempotentAnswer{}, err
				}
				if rec.status == 0 {
					rec.status = http.StatusOK
				}
				return app.IdempotentAnswer{Status: rec.status, Body: rec.body.Bytes()}, nil
			})
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		if ans.Replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		w.WriteHeader(ans.Status)
		_, _ = w.Write(ans.Body)
		return nil
	}
}

// spoolBody copies a file body to a temporary file within the import limit,
// hashing it on the way, and gives the request the file as its body.
func (s *Server) spoolBody(w http.ResponseWriter, r *http.Request) ([]byte, func(), error) {
	in, err := s.importBody(w, r)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.CreateTemp("", "smriti-import-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), in); err != nil {
		cleanup()
		var domain *smriti.Error
		if errors.As(err, &domain) {
			return nil, nil, domain
		}
		return nil, nil, smriti.Errorf(smriti.EINVALID, "could not read the request body: %v", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	r.Body = f
	return h.Sum(nil), cleanup, nil
}

// bufferedAnswer holds a handler's answer so it can be stored before it is
// sent.
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header { return b.header }

func (b *bufferedAnswer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedAnswer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
