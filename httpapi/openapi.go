package httpapi

import (
	"fmt"
	"html"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"smriti"
)

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// OpenAPI returns the OpenAPI 3.1 document for every route.
func (s *Server) OpenAPI() map[string]any {
	g := &schemaGen{defs: map[string]any{}}
	paths := map[string]any{}
	for _, rt := range s.routes {
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": operationID(rt),
			"tags":        []string{rt.tag},
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
				"schema": map[string]any{"type": "string"}})
		}
		keys := make([]string, 0, len(rt.query))
		for k := range rt.query {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			params = append(params, map[string]any{"name": k, "in": "query", "required": false,
				"description": rt.query[k], "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if rt.in != nil {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.in))}}}
		}
		resp := map[string]any{"description": http.StatusText(rt.status)}
		switch {
		case rt.stream:
			resp["content"] = map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{"type": "string"}}}
		case rt.text != "":
			resp["content"] = map[string]any{rt.text: map[string]any{"schema": map[string]any{"type": "string"}}}
		case rt.out != nil:
			resp["content"] = map[string]any{"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.out))}}
		}
		op["responses"] = map[string]any{
			fmt.Sprint(rt.status): resp,
			"default": map[string]any{"description": "Error", "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
		}
		p, _ := paths[rt.path].(map[string]any)
		if p == nil {
			p = map[string]any{}
			paths[rt.path] = p
		}
		p[strings.ToLower(rt.method)] = op
	}
	g.defs["Error"] = map[string]any{"type": "object", "required": []string{"detail"},
		"properties": map[string]any{"detail": map[string]any{"description": "A message, or an object for a few errors (see the reference)"}}}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Smriti API", "version": s.cfg.Version,
			"description": "Version control for reasoning state. Spaces are \"repos\" and checkpoints \"commits\" on the wire."},
		"paths":      paths,
		"components": map[string]any{"schemas": g.defs},
	}
}

func operationID(rt route) string {
	clean := strings.NewReplacer("/api/", "", "/", "_", "{", "", "}", "", "-", "_", ".", "_").Replace(rt.path)
	return strings.ToLower(rt.method) + "_" + strings.Trim(clean, "_")
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.OpenAPI())
	return nil
}

func (s *Server) docs(w http.ResponseWriter, r *http.Request) error {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>Smriti API</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}code{background:#f4f4f4;padding:1px 4px;border-radius:3px}
.m{display:inline-block;width:4.5em;font-weight:600}.GET{color:#0a7}.POST{color:#06c}.DELETE{color:#c33}.PATCH,.PUT{color:#a60}
</style></head><body><h1>Smriti API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a>.
Errors are <code>{"detail": "…"}</code>. Spaces are "repos" and checkpoints "commits" on the wire.</p>`)
	byTag := map[string][]route{}
	var tags []string
	for _, rt := range s.routes {
		if byTag[rt.tag] == nil {
			tags = append(tags, rt.tag)
		}
		byTag[rt.tag] = append(byTag[rt.tag], rt)
	}
	for _, tag := range tags {
		fmt.Fprintf(&b, "<h2>%s</h2><ul>", html.EscapeString(tag))
		for _, rt := range byTag[tag] {
			fmt.Fprintf(&b, `<li><span class="m %s">%s</span><code>%s</code> — %s`, rt.method, rt.method,
				html.EscapeString(rt.path), html.EscapeString(rt.summary))
			if len(rt.query) > 0 {
				var qs []string
				for k := range rt.query {
					qs = append(qs, k)
				}
				sort.Strings(qs)
				fmt.Fprintf(&b, " <small>query: %s</small>", html.EscapeString(strings.Join(qs, ", ")))
			}
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	}
	b.WriteString("</body></html>")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write([]byte(b.String()))
	return err
}

// schemaGen derives JSON Schemas from Go types by their json tags.
type schemaGen struct{ defs map[string]any }

var (
	timeType = reflect.TypeOf(time.Time{})
	uuidType = reflect.TypeOf(uuid.UUID{})
	taskType = reflect.TypeOf(smriti.Task{})
)

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == uuidType:
		return map[string]any{"type": "string", "format": "uuid"}
	case t == taskType:
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "object", "required": []string{"text"}, "properties": map[string]any{
				"text": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"},
				"intent_hint": map[string]any{"enum": []string{"implement", "review", "investigate", "docs", "test"}},
				"blocked_by":  map[string]any{"type": "string"}, "status": map[string]any{"enum": []string{"open", "done"}}}},
		}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schema(t.Elem())
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
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := t.Name()
		if name == "" {
			return g.object(t)
		}
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = map[string]any{} // placeholder breaks recursion
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
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
		if name == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				inner := g.object(f.Type)
				for k, v := range inner["properties"].(map[string]any) {
					props[k] = v
				}
				continue
			}
			name = f.Name
		}
		props[name] = g.schema(f.Type)
		if f.Tag.Get("required") == "true" || (!strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer && f.Tag.Get("required") != "false") {
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
