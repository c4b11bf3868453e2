package dbx

import (
	"context"
	"os"
	"testing"
	"time"

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

// Ids as uuid, text and NULL parameters, through the wrap and through the
// simple protocol (a transaction pooler's), come back as sent.
func TestUUIDParameters(t *testing.T) {
	url := os.Getenv("SMRITI_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("SMRITI_TEST_POSTGRES_URL not set")
	}
	for _, pooler := range []bool{false, true} {
		db, err := OpenPostgres(url, PoolConfig{MaxConns: 20, Timeout: 10 * time.Second, TransactionPooler: pooler}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id, other := uuid.New(), uuid.New()
		var asUUID, asText string
		var null, some uuid.NullUUID
		var count int
		err = db.QueryRowContext(context.Background(), `SELECT $1::uuid::text, $2::text, $3::uuid, $4::uuid,
			(SELECT count(*) FROM (VALUES ($5::uuid), ($6::uuid)) AS v(x) WHERE x = $7::uuid)`,
			id, id, uuid.NullUUID{}, uuid.NullUUID{UUID: other, Valid: true}, other, id, id).
			Scan(&asUUID, &asText, &null, &some, &count)
		db.Close()
		if err != nil {
			t.Fatalf("transaction pooler %v: %v", pooler, err)
		}
		if asUUID != id.String() || asText != id.String() || null.Valid || some != (uuid.NullUUID{UUID: other, Valid: true}) || count != 1 {
			t.Errorf("transaction pooler %v: got %s, %s, %v, %v, %d", pooler, asUUID, asText, null, some, count)
		}
	}
}
