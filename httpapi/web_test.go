package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"smriti/app"
	"smriti/httpapi"
)

// TestWebHandlerGetsEveryPathOutsideTheAPI: with a web workspace mounted,
// app paths reach it while unknown API paths keep the API's JSON 404.
func TestWebHandlerGetsEveryPathOutsideTheAPI(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app:"+r.URL.Path) })
	st := newEnv(t).store
	srv := httpapi.New(httpapi.Config{Backend: st, App: app.New(app.Config{Store: st}), Web: web})
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

// TestWrongMethodOutsideTheAPIIsJSON: with the web workspace catching every
// path outside /api, a wrong method on /health, /openapi.json or /docs is
// still the API's JSON 405 with Allow, not the workspace's answer.
func TestWrongMethodOutsideTheAPIIsJSON(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app:"+r.URL.Path) })
	st := newEnv(t).store
	hs := httptest.NewServer(httpapi.New(httpapi.Config{Backend: st, App: app.New(app.Config{Store: st}), Web: web}))
	defer hs.Close()
	checked := &http.Client{Transport: newContractTransport(t, hs.URL)}
	for _, c := range []struct{ method, path string }{
		{"POST", "/health"},
		{"PUT", "/openapi.json"},
		{"DELETE", "/docs"},
	} {
		req, _ := http.NewRequest(c.method, hs.URL+c.path, nil)
		resp, err := checked.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"detail":"Method ` + c.method + ` is not allowed on ` + c.path + `; allowed: GET, HEAD"}` + "\n"
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || resp.Header.Get("Content-Type") != "application/json" || string(b) != want {
			t.Errorf("%s %s = %d Allow %q type %q %q, want 405 Allow \"GET, HEAD\" %q", c.method, c.path, resp.StatusCode,
				resp.Header.Get("Allow"), resp.Header.Get("Content-Type"), b, want)
		}
	}
	// Other methods on the workspace's own paths still reach it.
	resp, err := checked.Post(hs.URL+"/sessions/abc", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "app:/sessions/abc" {
		t.Errorf("POST /sessions/abc = %q", b)
	}
}
