package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolSchemas returns the input schema a tool advertises and the strict one
// its arguments are checked against. They differ only in
// "additionalProperties": false, which the advertised schema leaves out
// (it costs every tools/list some 150 tokens): an unknown argument is still
// refused, by strict, with the same message the SDK would give.
func toolSchemas[In any]() (advertised *jsonschema.Schema, strict *jsonschema.Resolved) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(In), err))
	}
	if tw, ok := any(*new(In)).(interface{ tweakSchema(*jsonschema.Schema) }); ok {
		tw.tweakSchema(s)
	}
	if strict, err = s.Resolve(nil); err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(In), err))
	}
	advertised = s.CloneSchemas()
	openSchema(advertised)
	return advertised, strict
}

// openSchema drops additionalProperties from s and the object schemas in it.
func openSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		openSchema(p)
	}
	for _, d := range s.Defs {
		openSchema(d)
	}
	openSchema(s.Items)
}

// checkArgs validates raw arguments against the strict schema.
func checkArgs(strict *jsonschema.Resolved, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("validating \"arguments\": %v", err)
	}
	if err := strict.Validate(v); err != nil {
		return fmt.Errorf("validating \"arguments\": %v", err)
	}
	return nil
}
