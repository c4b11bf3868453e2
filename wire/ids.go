package wire

import (
	"strings"

	"smriti"
)

// OptID parses an optional UUID from a request field; "" and null are absent.
func OptID(field string, v *string) (*smriti.ID, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	id, err := smriti.ParseID(field, strings.TrimSpace(*v))
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// ReqID parses a required UUID field.
func ReqID(field string, v *string) (smriti.ID, error) {
	id, err := OptID(field, v)
	if err != nil {
		return smriti.NilID, err
	}
	if id == nil {
		return smriti.NilID, smriti.Errorf(smriti.EUNPROCESSABLE, "%s is required", field)
	}
	return *id, nil
}
