package store

import (
	"context"
	"os"
	"testing"

	"github.com/google/uuid"
)

// Ids as uuid, text and NULL parameters, through the wrap and through the
// simple protocol (a transaction pooler's), come back as sent.
func TestUUIDParameters(t *testing.T) {
	url := os.Getenv("SMRITI_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("SMRITI_TEST_POSTGRES_URL not set")
	}
	for _, pooler := range []string{"", PoolerTransaction} {
		db, err := openPostgres(url, Options{Pooler: pooler}, nil)
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
			t.Fatalf("pooler %q: %v", pooler, err)
		}
		if asUUID != id.String() || asText != id.String() || null.Valid || some != (uuid.NullUUID{UUID: other, Valid: true}) || count != 1 {
			t.Errorf("pooler %q: got %s, %s, %v, %v, %d", pooler, asUUID, asText, null, some, count)
		}
	}
}
