package dbx

import (
	"testing"

	"github.com/google/uuid"
)

func TestTryWrapUUID(t *testing.T) {
	id := uuid.New()
	for _, v := range []any{id, uuid.NullUUID{UUID: id, Valid: true}, uuid.NullUUID{}} {
		if _, _, ok := tryWrapUUID(v); !ok {
			t.Errorf("%T not wrapped", v)
		}
	}
	for _, v := range []any{id.String(), [16]byte(id), &id, nil} {
		if _, _, ok := tryWrapUUID(v); ok {
			t.Errorf("%T wrapped", v)
		}
	}
}
