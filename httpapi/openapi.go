package httpapi

import (
	_ "embed"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"smriti/account"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"smriti"
)

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// What each error status means on this API, for the reference.
var errorMeaning = map[int]string{
	400: "Malformed input: bad JSON, a malformed id, a wrong query parameter",
	401: "In auth mode: no credential, or one that is unknown, expired or revoked (with WWW-Authenticate: Bearer)",
	403: "In auth mode: the token's scope, or the caller's role in the space, does not permit this",
	404: "Not found, or not visible to the caller (a path id, or an id the body or query names)",
	409: "Conflict with the current state (see the detail)",
	413: "Request body too large",
	415: "The body is not sent as Content-Type: application/json (file imports: application/gzip or application/octet-stream); a write with any other Content-Type is refused, body or not",
	421: "The Host header names no host this server answers for (on loopback: localhost, 127.0.0.1, [::1] and each --allowed-host)",
	422: "Well-formed but invalid: a missing or out-of-range field or query parameter",
	429: "Too many requests: the caller's allowance of LLM-backed calls or of sign-in attempts is spent " +
		"(auth mode, or --llm-rate), or too many streams are open at once; retry after Retry-After seconds",
	500: "Internal error (logged on the server; never details)",
	502: "The LLM provider failed or answered unusably",
	503: "A needed provider is not configured, or the database is unavailable (then with Retry-After)",
}

// errorStatuses lists every error status a route can answer: 500 and 421
// (a Host the server does not answer for) always; 503 unless it never
// touches the database (noDatabase); in auth mode 401 unless
// the route is public, and 403 for a write; every write 403 (refused from
// another origin) and 415 (not JSON); 400 when it reads a path id, a query
// parameter or a body; 404 for a path id or an id the body or query names;
// 413 for a body; 422 for a body, a query parameter or a path parameter
// that is not a UUID; POST routes of the chat and intelligence areas call
// a provider (502, 503); 429 for the rate-limited LLM routes and the
// streams; plus the route's own errors. The auth statuses are listed
// whether or not the server runs in auth mode: the document describes the
// API, not one server's flags.
func errorStatuses(rt route) []int {
	set := map[int]bool{500: true, 421: true}
	if !noDatabase[rt.method+" "+rt.path] {
		set[503] = true
	}
	write := needOfMethod(rt.method) != account.NeedRead
	if !public(rt.method, rt.path) {
		set[401] = true
	}
	if write {
		set[403], set[415] = true, true
	}
	if llmRoutes[rt.method+" "+rt.path] || rt.stream != "" {
		set[429] = true
	}
	hasBody := rt.in != nil || len(rt.files) > 0
	params := pathParam.FindAllStringSubmatch(rt.path, -1)
	if len(params) > 0 || hasBody || len(rt.query) > 0 {
		set[400] = true
	}
	if len(params) > 0 || (rt.in != nil && namesIDs(reflect.TypeOf(rt.in), 0)) || queryNamesIDs(rt) {
		set[404] = true
	}
	if hasBody {
		set[413] = true
	}
	if rt.in != nil || len(rt.query) > 0 {
		set[422] = true
	}
	for _, m := range params {
		if _, notUUID := pathParamSchemas[m[1]]; notUUID {
			set[422] = true
		}
	}
	if rt.method == http.MethodPost && (rt.tag == "chat" || rt.tag == "intelligence") {
		set[502], set[503] = true, true
	}
	for _, st := range rt.errors {
		set[st] = true
	}
	out := make([]int, 0, len(set))
	for st := range set {
		out = append(out, st)
	}
	sort.Ints(out)
	return out
}

// noDatabase are the routes that never touch the database; every other one
// answers 503 (with Retry-After) while the database is unavailable.
var noDatabase = map[string]bool{"GET /health/live": true, "GET /openapi.json": true, "GET /docs": true}

// namesIDs reports whether a request body names things by id (a field
// "…_id" or "…_ids" at any depth), which the server looks up: 404 when one
// is missing.
func namesIDs(t reflect.Type, depth int) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || depth > 3 {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_ids") || namesIDs(f.Type, depth+1) {
			return true
		}
	}
	return false
}

// queryNamesIDs reports whether a route looks up something a query
// parameter names (an id, or a checkpoint reference).
func queryNamesIDs(rt route) bool {
	for k := range rt.query {
		if strings.HasSuffix(k, "_id") || k == "ref" {
			return true
		}
	}
	return false
}

// pathParamSchemas are the path parameters that are not UUIDs.
var pathParamSchemas = map[string]map[string]any{
	"item_id": {"type": "string", "pattern": "^[datqe]-[0-9a-f]{6,16}(@[0-9a-fA-F]{8,64})?$", "examples": []string{"d-7f3a9c", "d-7f3a9c@3f9a1c2b"},
		"description": "An item id (its kind's letter: d decision, a assumption, t task, q open question, e entity; a hyphen and 6 to 16 hex digits), or an item version's name: the id, @ and the hash (or a prefix of 8+ hex digits) of the checkpoint that introduced that version"},
	"name": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", "examples": []string{"origin"},
		"description": "A remote's name: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"},
	"rule": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]{0,99}$", "examples": []string{"github-pat"},
		"description": "A secret detection rule's id, as secrets scan and each redaction name it"},
	"fingerprint": {"type": "string", "pattern": "^[0-9a-f]{16}$", "examples": []string{"3f9a1c2b4d5e6f70"},
		"description": "A secret value's fingerprint: the first 16 hex digits of its SHA-256"},
	"id_or_prefix": {"type": "string", "pattern": "^[0-9a-fA-F-]{4,36}$", "examples": []string{"38e8e6be"},
		"description": "A worktree's id, or a prefix of it of at least 4 characters (422 when it matches several)"},
}

// querySchema is a query parameter's schema: the route's own, else a UUID
// for an id (every …_id parameter is parsed as one: 400 otherwise), an
// integer for a limit, a string for the rest.
func querySchema(rt route, name string) map[string]any {
	switch {
	case rt.querySchema[name] != nil:
		return rt.querySchema[name]
	case strings.HasSuffix(name, "_id"):
		return map[string]any{"type": "string", "format": "uuid"}
	case name == "limit":
		return map[string]any{"type": "integer"}
	}
	return map[string]any{"type": "string"}
}

func pathParamSchema(name string) map[string]any {
	if s, ok := pathParamSchemas[name]; ok {
		return s
	}
	return map[string]any{"type": "string", "format": "uuid"}
}

// securitySchemes are the credentials of auth mode (--auth). In local mode
// no credential is needed, so every operation's requirement includes the
// empty one; the public routes need none in either mode.
var securitySchemes = map[string]any{
	"bearer": map[string]any{"type": "http", "scheme": "bearer",
		"description": "An API token (Authorization: Bearer smriti_…), issued by POST /api/v4/auth/tokens or `smriti token create`; needed in auth mode only"},
	"session": map[string]any{"type": "apiKey", "in": "cookie", "name": SessionCookie,
		"description": "The web workspace's session cookie, set by POST /api/v4/auth/login; needed in auth mode only"},
}

var (
	optionalAuth = []any{map[string]any{"bearer": []string{}}, map[string]any{"session": []string{}}, map[string]any{}}
	noAuth       = []any{}
)

// OpenAPI returns the OpenAPI 3.1 document for every route. Schemas are
// derived from the routes' Go types by reflection (see schemaGen), so a new
// route is documented by adding it to the table.
func (s *Server) OpenAPI() map[string]any {
	doc, _ := s.openAPIDoc()
	return doc
}

// openAPIDoc builds the document and returns the generator that made its
// schemas, whose undescribed list the tests read.
// routeParams are a route's path, query and header parameters (nil when
// it has none).
func routeParams(rt route) []any {
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		param := map[string]any{"name": m[1], "in": "path", "required": true, "schema": pathParamSchema(m[1])}
		if d, ok := rt.paths[m[1]]; ok {
			param["description"] = d
		}
		params = append(params, param)
	}
	for _, k := range slices.Sorted(maps.Keys(rt.query)) {
		params = append(params, map[string]any{"name": k, "in": "query", "required": slices.Contains(rt.mustQuery, k),
			"description": rt.query[k], "schema": querySchema(rt, k)})
	}
	for _, k := range slices.Sorted(maps.Keys(rt.headers)) {
		params = append(params, map[string]any{"name": k, "in": "header", "required": false,
			"description": rt.headers[k], "schema": map[string]any{"type": "string"}})
	}
	return params
}

func (s *Server) openAPIDoc() (map[string]any, *schemaGen) {
	g := newSchemaGen()
	paths := map[string]any{}
	for _, rt := range s.routes {
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": operationID(rt),
			"tags":        []string{rt.tag},
		}
		if rt.description != "" {
			op["description"] = rt.description
		}
		if params := routeParams(rt); params != nil {
			op["parameters"] = params
		}
		if rt.in != nil {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.in), dirIn)}}}
		}
		if len(rt.files) > 0 {
			content := map[string]any{}
			for _, mt := range rt.files {
				content[mt] = map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
		}
		resp := map[string]any{"description": http.StatusText(rt.status)}
		switch {
		case rt.stream != "":
			resp["description"] = "Server-sent events: " + rt.stream
			resp["content"] = map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{"type": "string"}}}
		case rt.text != "":
			resp["content"] = map[string]any{rt.text: map[string]any{"schema": map[string]any{"type": "string"}}}
		case rt.out != nil:
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.out), dirOut)}}
		}
		if _, ok := rt.query["after"]; ok {
			resp["headers"] = map[string]any{"X-Next-Cursor": map[string]any{
				"description": "Present when more items follow: pass it as ?after= to get the next page",
				"schema":      map[string]any{"type": "string"}}}
		}
		if rt.idempotent {
			resp["headers"] = map[string]any{"Idempotent-Replayed": map[string]any{
				"description": "true when the answer is the stored one of an earlier request with the same Idempotency-Key",
				"schema":      map[string]any{"type": "string", "enum": []string{"true"}}}}
		}
		responses := map[string]any{strconv.Itoa(rt.status): resp}
		for _, a := range rt.also {
			r := map[string]any{"description": a.description}
			if a.out != nil {
				r["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(a.out), dirOut)}}
			}
			responses[strconv.Itoa(a.status)] = r
		}
		if public(rt.method, rt.path) {
			op["security"] = noAuth
		}
		for _, st := range errorStatuses(rt) {
			if _, own := responses[strconv.Itoa(st)]; own {
				continue
			}
			e := map[string]any{"description": errorMeaning[st], "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
			if st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable || st == http.StatusConflict && rt.idempotent {
				e["headers"] = map[string]any{"Retry-After": map[string]any{
					"description": "Whole seconds to wait before trying again", "schema": map[string]any{"type": "integer", "minimum": 1}}}
			}
			responses[strconv.Itoa(st)] = e
		}
		op["responses"] = responses
		p, _ := paths[rt.path].(map[string]any)
		if p == nil {
			p = map[string]any{}
			paths[rt.path] = p
		}
		p[strings.ToLower(rt.method)] = op
	}
	g.defs["Error"] = map[string]any{"type": "object", "required": []string{"detail"},
		"description": "Every error answer. A request with a wrong method on a known path gets 405 with an Allow header, in the same shape.",
		"properties": map[string]any{"detail": map[string]any{
			"description": "A message meant for the user; an object for a few errors (merge conflicts, a checkpoint with dependents)"}}}
	version := s.cfg.Version
	if version == "" {
		version = "dev"
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Smriti API", "version": version,
			"license": map[string]any{"name": "Apache License 2.0", "identifier": "Apache-2.0"},
			"description": "Version control for reasoning state. Spaces are \"repos\" and checkpoints \"commits\" on the wire. " +
				"Lists page with ?limit= and ?after=<X-Next-Cursor of the previous page>. " +
				"A request with a method a documented path does not list is answered 405 with an Allow header naming the methods it does " +
				"(components/responses/MethodNotAllowed); an unknown path under /api/ is 404. " +
				"In auth mode (--auth) every route but the public ones (health, this document, /docs, sign-in and sign-out) needs a bearer token or the session cookie; local mode needs none."},
		// Relative: the server that served this document (smriti serve's
		// --addr, http://127.0.0.1:8000 by default).
		"servers":  []any{map[string]any{"url": "/", "description": "The server this document was fetched from"}},
		"security": optionalAuth,
		"paths":    paths,
		"components": map[string]any{"schemas": g.defs, "securitySchemes": securitySchemes, "responses": map[string]any{
			// Not an operation's: any documented path asked with a method
			// it does not list.
			"MethodNotAllowed": map[string]any{
				"description": "A method the path does not list: every documented path answers it so",
				"headers": map[string]any{"Allow": map[string]any{"required": true, "schema": map[string]any{"type": "string"},
					"description": "The methods the path serves, comma-separated (HEAD wherever GET)"}},
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}}},
	}, g
}

func operationID(rt route) string {
	clean := strings.NewReplacer("/api/", "", "/", "_", "{", "", "}", "", "-", "_", ".", "_").Replace(rt.path)
	return strings.ToLower(rt.method) + "_" + strings.Trim(clean, "_")
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.OpenAPI())
	return nil
}

// docsPage renders /openapi.json in the browser: a static page with its
// own script, embedded in the binary, so the reference works offline.
//
//go:embed docs.html
var docsPage []byte

func (s *Server) docs(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'")
	_, err := w.Write(docsPage)
	return err
}

// direction says whether a schema describes a request or a response: the
// same Go field is required in a response when it is always written, and
// in a request only when the server refuses a body without it.
type direction int

const (
	dirIn direction = iota
	dirOut
)

// schemaGen derives JSON Schemas from Go types. Per struct field:
//
//	json:"name[,omitempty]"  the property name (embedded structs are inlined)
//	doc:"…"                  the description
//	enum:"a,b,c"             the allowed values
//	default:"…"              the default when absent (JSON text, or a plain string)
//	required:"true|false"    in a request: required only with required:"true";
//	                         in a response: required unless omitempty or required:"false"
//
// Named struct types become components (request-side ones get an "Input"
// suffix unless their name already says Request); a type may supply its
// own schema with an apiSchema method.
type schemaGen struct {
	defs map[string]any
	// undescribed names each struct field that became a property without
	// a doc tag ("httpapi.Commit.Message"), for the test that forbids them.
	undescribed []string
}

func newSchemaGen() *schemaGen { return &schemaGen{defs: map[string]any{}} }

// customSchema lets a type describe itself (a map with known keys, say).
type customSchema interface {
	apiSchema(g *schemaGen) map[string]any
}

var (
	timeType   = reflect.TypeOf(time.Time{})
	uuidType   = reflect.TypeOf(uuid.UUID{})
	taskType   = reflect.TypeOf(smriti.Task{})
	blockType  = reflect.TypeOf(smriti.Blockers{})
	customType = reflect.TypeOf((*customSchema)(nil)).Elem()
)

func (g *schemaGen) schema(t reflect.Type, dir direction) map[string]any {
	if t.Implements(customType) {
		return reflect.Zero(t).Interface().(customSchema).apiSchema(g)
	}
	switch {
	case t == blockType:
		return blockersSchema()
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == uuidType:
		return map[string]any{"type": "string", "format": "uuid"}
	case t == taskType:
		return taskSchema()
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schema(t.Elem(), dir)
		return map[string]any{"anyOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": orNull("array", dir, t), "items": g.schema(t.Elem(), dir)}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": orNull("object", dir, t), "additionalProperties": true}
		}
		return map[string]any{"type": orNull("object", dir, t), "additionalProperties": g.schema(t.Elem(), dir)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := t.Name()
		if name == "" {
			return g.object(t, dir)
		}
		if dir == dirIn && !strings.HasSuffix(name, "Request") && !strings.HasSuffix(name, "In") {
			name += "Input"
		}
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = map[string]any{} // placeholder breaks recursion
			g.defs[name] = g.object(t, dir)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

// orNull is a list or map's type. In a request it may also be null: Go's
// JSON decoding takes null for an empty list or map, and Go clients (ours
// among them) send a nil one as null.
func orNull(typ string, dir direction, t reflect.Type) any {
	if dir == dirIn && t.Kind() != reflect.Array {
		return []string{typ, "null"}
	}
	return typ
}

func (g *schemaGen) object(t reflect.Type, dir direction) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			inner := g.object(f.Type, dir)
			for k, v := range inner["properties"].(map[string]any) {
				props[k] = v
			}
			if req, ok := inner["required"].([]string); ok {
				required = append(required, req...)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.field(f, dir)
		if f.Tag.Get("doc") == "" {
			g.undescribed = append(g.undescribed, t.String()+"."+f.Name)
		}
		req := f.Tag.Get("required")
		switch {
		case req == "true",
			dir == dirOut && req != "false" && !strings.Contains(opts, "omitempty"):
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = required
	}
	return out
}

// field is a struct field's schema with its doc, enum and default tags.
func (g *schemaGen) field(f reflect.StructField, dir direction) map[string]any {
	s := g.schema(f.Type, dir)
	if _, isRef := s["$ref"]; isRef || s["anyOf"] != nil {
		// Annotations beside a $ref are ignored by older readers: wrap.
		if f.Tag.Get("doc") != "" || f.Tag.Get("default") != "" {
			s = map[string]any{"allOf": []any{s}}
		}
	}
	if d := f.Tag.Get("doc"); d != "" {
		s["description"] = d
	}
	if e := f.Tag.Get("enum"); e != "" {
		vals := strings.Split(e, ",")
		if dir == dirIn && f.Type.Kind() == reflect.String && f.Tag.Get("required") != "true" {
			// A Go client sends an unset string as "": the server takes it
			// for absent (the default).
			vals = append(vals, "")
		}
		if f.Type.Kind() == reflect.Pointer {
			s["enum"] = append(anySlice(vals), nil)
		} else {
			s["enum"] = vals
		}
	}
	if d, ok := f.Tag.Lookup("default"); ok {
		s["default"] = defaultValue(f.Type, d)
	}
	return s
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// defaultValue turns a default tag into a JSON value of the field's kind.
func defaultValue(t reflect.Type, d string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			return n
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(d); err == nil {
			return b
		}
	}
	return d
}

func blockersSchema() map[string]any {
	return map[string]any{
		"description": "The ids of the tasks this one waits for: one id as a string, several as a list",
		"oneOf":       []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}
}

func taskSchema() map[string]any {
	return map[string]any{
		"description": "A task: a plain string, or an object when it carries annotations",
		"oneOf": []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "object", "required": []string{"text"}, "properties": map[string]any{
				"text": map[string]any{"type": "string", "description": "What is to be done"},
				"id":   map[string]any{"type": "string", "description": "A short id other tasks can name in blocked_by"},
				"intent_hint": map[string]any{"enum": []string{smriti.IntentImplement, smriti.IntentReview, smriti.IntentInvestigate, smriti.IntentDocs, smriti.IntentTest},
					"description": "What kind of work it is, for agents picking tasks"},
				"blocked_by": blockersSchema(),
				"status":     map[string]any{"enum": []string{smriti.TaskOpen, smriti.TaskDone}, "description": "open (default) or done; extract keeps markdown checkbox state here"}}},
		}}
}
