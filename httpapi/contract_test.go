package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The contract layer: every request an httpapi test sends to its server,
// and every answer, is checked against the document that server serves at
// /openapi.json (kin-openapi's openapi3filter, JSON Schema 2020-12 as
// OpenAPI 3.1 says). An answer the document does not describe fails the
// test that caused it:
//
//   - the status must be one the operation documents, with a body of the
//     documented media type that matches the documented schema (a stream's
//     body is not read; its media type is checked);
//   - a request the document refuses must be refused by the server with a
//     4xx: a 2xx means the document is stricter than the server (a
//     path parameter declared a UUID that is not one, say). Tests that send
//     deliberately bad input therefore need no marking; laxRequest marks
//     the rare request whose refusal is not the point;
//   - a wrong method on a documented path must be 405 with an Allow header
//     naming the documented methods; an unknown /api/ path must be 404.
//
// Paths outside the document's reach are not checked: /mcp (MCP has its
// own conformance suite), /metrics (Prometheus' text format), the web
// workspace's pages, and CORS preflights (OPTIONS, answered by the
// browser guard before routing).
type contractTransport struct {
	t    testing.TB
	base http.RoundTripper
	url  string

	once sync.Once
	doc  *contractDoc
	err  error

	mu   sync.Mutex
	done bool
}

type laxKey struct{}

// laxRequest marks a request whose refusal by the document is expected
// even though the server accepts it; its answer is still checked.
func laxRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, laxKey{}, true)
}

func newContractTransport(t testing.TB, url string) *contractTransport {
	ct := &contractTransport{t: t, base: http.DefaultTransport, url: url}
	t.Cleanup(func() {
		ct.mu.Lock()
		ct.done = true
		ct.mu.Unlock()
	})
	return ct
}

// contractDocs caches parsed documents by content: most servers of a test
// run serve the same one.
var contractDocs sync.Map // [32]byte → *contractDoc

type contractDoc struct {
	spec   *openapi3.T
	router routers.Router
	err    error
}

func init() {
	// Bodies the API takes or gives that are not JSON: read as opaque
	// bytes (their schema is a binary or plain string).
	// Formats are assertions here, as a validating client treats them
	// (JSON Schema 2020-12 makes them annotations by default).
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`))
	for _, mt := range []string{"application/gzip", "text/html", "text/markdown", "text/event-stream", "application/x-ndjson", "application/jsonl"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
}

func (ct *contractTransport) load() {
	req, err := http.NewRequest(http.MethodGet, ct.url+"/openapi.json", nil)
	if err != nil {
		ct.err = err
		return
	}
	resp, err := ct.base.RoundTrip(req)
	if err != nil {
		ct.err = err
		return
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		ct.err = err
		return
	}
	key := sha256.Sum256(raw)
	d, ok := contractDocs.Load(key)
	if !ok {
		d, _ = contractDocs.LoadOrStore(key, parseContract(raw))
	}
	ct.doc, ct.err = d.(*contractDoc), d.(*contractDoc).err
}

// parseContract loads and validates a served document and routes by it.
func parseContract(raw []byte) *contractDoc {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return &contractDoc{err: fmt.Errorf("load /openapi.json: %w", err)}
	}
	if err := doc.Validate(loader.Context); err != nil {
		return &contractDoc{err: fmt.Errorf("/openapi.json is not a valid OpenAPI document: %w", err)}
	}
	// Route by path alone: the document's one server is relative ("/"),
	// and each test server listens on its own port.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	return &contractDoc{spec: doc, router: router, err: err}
}

// methods lists the methods the document gives the templates path matches
// (a template's parameter matches one non-empty segment; "/spaces/import"
// matches "/spaces/{space_id}" too, as in the server's mux), and whether
// one matches at all.
func (d *contractDoc) methods(path string) ([]string, bool) {
	segs := strings.Split(path, "/")
	have := map[string]bool{}
	known := false
	for tmpl, item := range d.spec.Paths.Map() {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		match := true
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				match = match && segs[i] != ""
			} else {
				match = match && ts[i] == segs[i]
			}
		}
		if !match {
			continue
		}
		known = true
		for m := range item.Operations() {
			have[strings.ToUpper(m)] = true
		}
	}
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if have[m] {
			out = append(out, m)
			if m == http.MethodGet {
				out = append(out, http.MethodHead)
			}
		}
	}
	return out, known
}

func (ct *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := ct.base.RoundTrip(req)
	if err != nil || !strings.HasPrefix(req.URL.String(), ct.url) {
		return resp, err
	}
	ct.once.Do(ct.load)
	if ct.err != nil {
		ct.fail("%v", ct.err)
		return resp, nil
	}
	problem, err := ct.check(req, reqBody, resp)
	if problem != "" {
		ct.fail("%s %s → %d: %s", req.Method, req.URL.RequestURI(), resp.StatusCode, problem)
	}
	return resp, err
}

func (ct *contractTransport) fail(format string, args ...any) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if !ct.done {
		ct.t.Errorf("contract: "+format, args...)
	}
}

// check returns what in the exchange the document does not describe ("" when
// nothing); the error is one reading the answer's body.
func (ct *contractTransport) check(req *http.Request, reqBody []byte, resp *http.Response) (string, error) {
	path := req.URL.Path
	if req.Method == http.MethodOptions || path == "/metrics" || path == "/mcp" || strings.HasPrefix(path, "/mcp/") {
		return "", nil
	}
	methods, known := ct.doc.methods(path)
	switch {
	case !known:
		if strings.HasPrefix(path, "/api/") && resp.StatusCode != http.StatusNotFound {
			return "an undocumented path answered", nil
		}
		return "", nil // the web workspace, or an unknown path's 404
	case !slices.Contains(methods, req.Method):
		return ct.checkWrongMethod(methods, resp)
	}
	probe := req
	if req.Method == http.MethodHead {
		// HEAD is GET without a body (net/http serves it for every GET).
		probe = req.Clone(req.Context())
		probe.Method = http.MethodGet
	}
	route, params, err := ct.doc.router.FindRoute(probe)
	if err != nil {
		return "route: " + err.Error(), nil
	}
	in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true}}
	var problems []string
	if req.Context().Value(laxKey{}) == nil && (resp.StatusCode < 400 || resp.StatusCode >= 500) {
		in.Request = probe.Clone(probe.Context())
		in.Request.Body = io.NopCloser(bytes.NewReader(reqBody))
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			problems = append(problems, fmt.Sprintf("the server did not refuse a request the document refuses: %v", oneLine(err)))
		}
	}
	if req.Method == http.MethodHead {
		return strings.Join(problems, "; "), nil
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	media, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if media == "text/event-stream" {
		// A stream may never end: check its status and media type only.
		out.Options.ExcludeResponseBody = true
		if r := route.Operation.Responses.Status(resp.StatusCode); r != nil && r.Value != nil && r.Value.Content.Get(media) == nil {
			problems = append(problems, "undocumented media type "+media)
		}
		out.Body = io.NopCloser(strings.NewReader(""))
	} else {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return strings.Join(problems, "; "), err
		}
		out.SetBodyBytes(body)
		if r := route.Operation.Responses.Status(resp.StatusCode); len(body) > 0 && r != nil && r.Value != nil && len(r.Value.Content) == 0 {
			problems = append(problems, fmt.Sprintf("a body where the document has none: %.120s", body))
		}
	}
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		problems = append(problems, oneLine(err))
	}
	return strings.Join(problems, "; "), nil
}

// checkWrongMethod: a known path asked with a method it does not serve is
// 405, with an Allow header naming the methods the document lists for it,
// as the document's MethodNotAllowed response describes.
func (ct *contractTransport) checkWrongMethod(documented []string, resp *http.Response) (string, error) {
	if resp.StatusCode != http.StatusMethodNotAllowed {
		return "an undocumented method answered", nil
	}
	if allow := strings.Split(resp.Header.Get("Allow"), ", "); !slices.Equal(allow, documented) {
		return fmt.Sprintf("405 with Allow %q, the document lists %q", allow, documented), nil
	}
	r := ct.doc.spec.Components.Responses["MethodNotAllowed"]
	if r == nil || r.Value == nil {
		return "405 is not described (components/responses/MethodNotAllowed)", nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	media, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	mt := r.Value.Content.Get(media)
	if mt == nil || mt.Schema == nil {
		return "405 answered as undocumented " + media, nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "405 body is not JSON: " + err.Error(), nil
	}
	if err := mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()); err != nil {
		return "405 body: " + oneLine(err), nil
	}
	return "", nil
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// contractRecorder keeps what the contract layer reports instead of
// failing the test.
type contractRecorder struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (r *contractRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf(format, args...))
}

// The layer itself: each kind of undescribed answer is reported, and a
// described one is not.
func TestContractLayerReports(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
		"/things/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}],
			"responses": {
				"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}}}},
				"404": {"description": "missing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}},
		"components": {"schemas": {"Error": {"type": "object", "required": ["detail"], "properties": {"detail": {"type": "string"}}}},
			"responses": {"MethodNotAllowed": {"description": "wrong method", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}`
	const id = "/things/6f1c2a7e-9d4b-4c1e-8a3f-2b5d7e9c1a40"
	// Each path of the fake server answers as its case needs.
	answers := map[string]func(w http.ResponseWriter){
		"GET " + id: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"n": 1}`)
		},
		"GET /things/not-a-uuid": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"n": 1}`)
		},
		"GET /things/5b7e0c1d-2f3a-4b5c-8d6e-7f8091a2b3c4": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(409)
			io.WriteString(w, `{"detail": "busy"}`)
		},
		"GET /things/0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"n": "one"}`)
		},
		"DELETE " + id: func(w http.ResponseWriter) {
			w.Header().Set("Allow", "GET, HEAD, DELETE")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(405)
			io.WriteString(w, `{"detail": "no"}`)
		},
		"POST " + id: func(w http.ResponseWriter) {
			w.Header().Set("Allow", "GET, HEAD")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(405)
			io.WriteString(w, `{"detail": "no"}`)
		},
		"GET /api/unknown": func(w http.ResponseWriter) { io.WriteString(w, "hello") },
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			io.WriteString(w, doc)
			return
		}
		answers[r.Method+" "+r.URL.Path](w)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name, method, path string
		want               string // a substring of the one report; "" for none
	}{
		{"Described", "GET", id, ""},
		{"DocumentStricterThanServer", "GET", "/things/not-a-uuid", "the server did not refuse a request the document refuses"},
		{"UndocumentedStatus", "GET", "/things/5b7e0c1d-2f3a-4b5c-8d6e-7f8091a2b3c4", "status is not supported"},
		{"BodyNotTheSchema", "GET", "/things/0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f", "response body doesn't match schema"},
		{"WrongMethodAllowsMore", "DELETE", id, `405 with Allow ["GET" "HEAD" "DELETE"], the document lists ["GET" "HEAD"]`},
		{"WrongMethodDescribed", "POST", id, ""},
		{"UndocumentedAPIPath", "GET", "/api/unknown", "an undocumented path answered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &contractRecorder{TB: t}
			c := &http.Client{Transport: newContractTransport(rec, srv.URL)}
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			switch {
			case tt.want == "" && len(rec.got) != 0:
				t.Fatalf("reported %q, want nothing", rec.got)
			case tt.want != "" && (len(rec.got) != 1 || !strings.Contains(rec.got[0], tt.want)):
				t.Fatalf("reported %q, want one report with %q", rec.got, tt.want)
			}
		})
	}
}
