package dbx

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Ids (google/uuid) reach pgx as driver.Valuers that answer a string: for a
// uuid parameter, sent in binary, pgx first fails to encode the string (and
// formats an error for it), then parses it back and encodes the bytes. That
// is most of the CPU pgx spends on a send's arguments. WrapUUIDs hands pgx
// the id's bytes as a pgtype.UUID instead: the uuid codec encodes it at
// once, and a parameter of another type (text) still gets the string from
// its Value.
func WrapUUIDs(_ context.Context, c *pgx.Conn) error {
	m := c.TypeMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUID}, m.TryWrapEncodePlanFuncs...)
	return nil
}

func tryWrapUUID(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch v := value.(type) {
	case uuid.UUID:
		return &uuidEncodePlan{}, pgtype.UUID{Bytes: v, Valid: true}, true
	case uuid.NullUUID:
		return &uuidEncodePlan{}, pgtype.UUID{Bytes: v.UUID, Valid: v.Valid}, true
	}
	return nil, nil, false
}

type uuidEncodePlan struct{ next pgtype.EncodePlan }

func (p *uuidEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	switch v := value.(type) {
	case uuid.UUID:
		return p.next.Encode(pgtype.UUID{Bytes: v, Valid: true}, buf)
	case uuid.NullUUID:
		return p.next.Encode(pgtype.UUID{Bytes: v.UUID, Valid: v.Valid}, buf)
	}
	return p.next.Encode(value, buf)
}
