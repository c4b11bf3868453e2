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
	404: "Not found, or not visible to the caller",
	409: "Conflict with the current state (see the detail)",
	413: "Request body too large",
	422: "Well-formed but invalid: a missing or out-of-range field",
	429: "Too many requests: the caller's allowance of LLM-backed calls or of sign-in attempts is spent " +
		"(auth mode, or --llm-rate), or too many streams are open at once; retry after Retry-After seconds",
	500: "Internal error (logged on the server; never details)",
	502: "The LLM provider failed or answered unusably",
	503: "A needed provider is not configured, or the database is unavailable",
}

// errorStatuses lists every error status a route can answer: 500 always;
// in auth mode 401 unless the route is public, and 403 for a write; 400
// when it reads a path id, a query parameter or a body; 404 for a path id;
// 413 and 422 for a body; POST routes of the chat and intelligence areas
// call a provider (502, 503); 429 for the rate-limited LLM routes and the
// streams; plus the route's own errors. The auth statuses are listed
// whether or not the server runs in auth mode: the document describes the
// API, not one server's flags.
func errorStatuses(rt route) []int {
	set := map[int]bool{500: true}
	if !public(rt.method, rt.path) {
		set[401] = true
		if needOfMethod(rt.method) != account.NeedRead {
			set[403] = true
		}
	}
	if llmRoutes[rt.method+" "+rt.path] || rt.stream != "" {
		set[429] = true
	}
	hasPath := pathParam.MatchString(rt.path)
	if hasPath || rt.in != nil || len(rt.query) > 0 {
		set[400] = true
	}
	if hasPath {
		set[404] = true
	}
	if rt.in != nil {
		set[413], set[422] = true, true
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

// OpenAPI returns the OpenAPI 3.1 document for every route. Schemas are
// derived from the routes' Go types by reflection (see schemaGen), so a new
// route is documented by adding it to the table.
func (s *Server) OpenAPI() map[string]any {
	doc, _ := s.openAPIDoc()
	return doc
}

// openAPIDoc builds the document and returns the generator that made its
// schemas, whose undescribed list the tests read.
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
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			if d, ok := rt.paths[m[1]]; ok {
				params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
					"description": d, "schema": map[string]any{"type": "string"}})
				continue
			}
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
				"schema": map[string]any{"type": "string", "format": "uuid"}})
		}
		for _, k := range slices.Sorted(maps.Keys(rt.query)) {
			params = append(params, map[string]any{"name": k, "in": "query", "required": slices.Contains(rt.mustQuery, k),
				"description": rt.query[k], "schema": map[string]any{"type": "string"}})
		}
		for _, k := range slices.Sorted(maps.Keys(rt.headers)) {
			params = append(params, map[string]any{"name": k, "in": "header", "required": false,
				"description": rt.headers[k], "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
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
		for _, st := range errorStatuses(rt) {
			e := map[string]any{"description": errorMeaning[st], "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
			if st == http.StatusTooManyRequests || st == http.StatusConflict && rt.idempotent {
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
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Smriti API", "version": s.cfg.Version,
			"description": "Version control for reasoning state. Spaces are \"repos\" and checkpoints \"commits\" on the wire. " +
				"Lists page with ?limit= and ?after=<X-Next-Cursor of the previous page>."},
		"paths":      paths,
		"components": map[string]any{"schemas": g.defs},
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
		return map[string]any{"type": "array", "items": g.schema(t.Elem(), dir)}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object", "additionalProperties": true}
		}
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem(), dir)}
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
