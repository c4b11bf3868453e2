package httpapi_test

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A second space of the same name is a 409 whose detail names the
// existing space's id, on both engines.
func TestSpaceNameTakenIs409(t *testing.T) {
	for _, engine := range []struct {
		name string
		opts []envOption
	}{{"SQLite", nil}, {"Postgres", []envOption{withPostgres()}}} {
		t.Run(engine.name, func(t *testing.T) {
			e := newEnv(t, engine.opts...)
			status, body := e.raw(t, "POST", "/api/v2/repos", `{"name":"demo"}`)
			if status != 201 && status != 200 {
				t.Fatalf("create: %d %s", status, body)
			}
			var first struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal([]byte(body), &first); err != nil {
				t.Fatal(err)
			}
			status, body = e.raw(t, "POST", "/api/v2/repos", `{"name":"demo","description":"again"}`)
			var problem struct {
				Detail string `json:"detail"`
			}
			if err := json.Unmarshal([]byte(body), &problem); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf(`You already have a space named "demo" (id %s); choose another name`, first.ID)
			if status != 409 || problem.Detail != want {
				t.Fatalf("second demo: %d %s; want 409 with detail %q", status, body, want)
			}
		})
	}
}
