package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"smriti/app"
	"time"

	"smriti"
)

type ctxKey int

const requestIDKey ctxKey = iota

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status written, for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming handlers flush through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// middleware gives every request an id, the local user, the browser checks
// (Host, CORS, Origin, Content-Type), a body-read deadline, a log line, and
// recovery from panics.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-ID")
		if id == "" || len(id) > 128 {
			id = newRequestID()
		}
		w.Header().Set("X-Request-ID", id)
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		r = r.WithContext(ctx)
		// The body deadline comes first: even a refused request's body is
		// drained by the server before the connection is reused.
		s.boundBody(w, r)
		if done, err := s.guard.check(w, r); done || err != nil {
			if err != nil {
				s.writeError(w, r, err)
			}
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				s.log.ErrorContext(ctx, "panic", "panic", p, "method", r.Method, "path", r.URL.Path, "request_id", id)
				if rec.status == 0 {
					s.writeError(rec, r, smriti.Errorf(smriti.EINTERNAL, "internal error"))
				}
			}
			s.log.InfoContext(ctx, "request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
				"duration_ms", float64(time.Since(start).Microseconds())/1000, "request_id", id)
		}()
		// The principal is resolved once; the store scopes every query by
		// its user.
		p, err := s.authenticate(r)
		if err == nil && p != nil {
			err = s.authorizeMCP(r, p)
		}
		if err != nil {
			if smriti.ErrorCode(err) == smriti.EUNAUTHORIZED {
				rec.Header().Set("WWW-Authenticate", `Bearer realm="smriti"`)
			}
			s.writeError(rec, r, err)
			return
		}
		if p != nil {
			ctx = app.WithPrincipal(smriti.WithUser(ctx, p.UserID), p)
		} else {
			// A public path in auth mode acts for nobody: no space has the
			// nil user as a member.
			ctx = smriti.WithUser(ctx, smriti.NilID)
		}
		r = r.WithContext(ctx)
		next.ServeHTTP(rec, r)
	})
}

// wrap turns a route's error-returning handler into an http.Handler that
// writes errors in the wire format and records metrics by route pattern.
func (s *Server) wrap(rt route) http.Handler {
	pattern := rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec, ok := w.(*statusRecorder)
		if !ok {
			rec = &statusRecorder{ResponseWriter: w}
		}
		err := s.authorize(rt, rec, r)
		switch {
		case err != nil:
		case rt.stream != "":
			err = s.serveStream(rt, rec, r)
		default:
			err = rt.handle(rec, r)
		}
		if err != nil {
			if rec.status != 0 {
				// Headers already went out (a stream); nothing more to say.
				s.log.WarnContext(r.Context(), "error after response started", "err", err, "request_id", requestID(r.Context()))
			} else {
				s.writeError(rec, r, err)
			}
		}
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		s.metrics.observeRequest(r.Method, pattern, status, time.Since(start))
	})
}
