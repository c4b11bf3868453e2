package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"smriti/httpapi"
)

// TestWebHandlerGetsEveryPathOutsideTheAPI: with a web workspace mounted,
// app paths reach it while unknown API paths keep the API's JSON 404.
func TestWebHandlerGetsEveryPathOutsideTheAPI(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app:"+r.URL.Path) })
	srv := httpapi.New(httpapi.Config{Backend: newEnv(t).store, Web: web})
	for _, c := range []struct{ path, want string }{
		{"/", "app:/"},
		{"/sessions/abc", "app:/sessions/abc"},
		{"/api/v9/nope", `{"detail":"Not found: GET /api/v9/nope"}` + "\n"},
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if got := rec.Body.String(); got != c.want {
			t.Errorf("GET %s = %q, want %q", c.path, got, c.want)
		}
	}
}
