package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode"

	"smriti"
)

// DecodeJSON decodes one JSON object from body into dst, turning decoder
// errors into domain errors with a message that names the problem.
func DecodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return smriti.Errorf(smriti.EINVALID, "request body is empty; send a JSON object")
	}
	if trimmed[0] != '{' {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "request body must be a JSON object")
	}
	if err := checkJSONText(trimmed); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return smriti.Errorf(smriti.EINVALID, "request body has data after the JSON object")
	}
	return nil
}

// wireField is a decoder's field path without the names of embedded Go
// structs ("ContentFields.message" is "message"): the wire's names are
// lower-case, Go's are not, and a client should never see a Go name.
func wireField(path string) string {
	var keep []string
	for _, seg := range strings.Split(path, ".") {
		if seg != "" && !unicode.IsUpper([]rune(seg)[0]) {
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, ".")
}

func jsonError(err error) error {
	var domain *smriti.Error
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &domain):
		return domain
	case errors.As(err, &syntax):
		return smriti.Errorf(smriti.EINVALID, "malformed JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		field := wireField(typ.Field)
		if field == "" {
			field = "body"
		}
		return smriti.Errorf(smriti.EUNPROCESSABLE, "%s: expected %s, got %s", field, describeType(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return smriti.Errorf(smriti.EINVALID, "malformed JSON: the body ends too early")
	}
	return smriti.Errorf(smriti.EINVALID, "malformed JSON: %v", err)
}

func describeType(t string) string {
	switch {
	case t == "[]string":
		return "an array of strings"
	case strings.HasPrefix(t, "[]") && describeType(t[2:]) == "an object":
		return "an array of objects"
	case strings.HasPrefix(t, "[]"):
		return "an array of " + describeType(t[2:])
	case t == "string", t == "*string":
		return "a string"
	case strings.Contains(t, "int"):
		return "an integer"
	case t == "bool", t == "*bool":
		return "a boolean"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		// A Go struct (smriti.Artifact, smriti.MergeResolution, …) is a
		// JSON object; the wire never names a Go type.
		return "an object"
	}
	return t
}
