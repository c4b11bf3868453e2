package httpapi

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"smriti"
)

// SecurityConfig bounds connections and relaxes the browser rules where the
// operator says so. Zero values take the defaults below.
type SecurityConfig struct {
	// CORSOrigins are the only origins granted cross-origin access
	// (--cors-origin); none by default.
	CORSOrigins []string
	// AllowedHosts are Host names answered besides the loopback names
	// (--allowed-host).
	AllowedHosts []string
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout bounds reading a request's body, from the first byte
	// of the headers: a client that trickles a body is cut off.
	BodyReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request.
	IdleTimeout time.Duration
	// StreamWriteTimeout bounds each write of a streamed answer: a client
	// that stops reading is dropped and its upstream call cancelled.
	StreamWriteTimeout time.Duration
	// StreamKeepAlive is how often a quiet stream sends an SSE comment.
	StreamKeepAlive time.Duration
	// MaxStreams caps concurrent streamed answers; more get 429.
	MaxStreams int
}

// Connection bounds used when SecurityConfig leaves them zero.
const (
	DefaultReadHeaderTimeout  = 10 * time.Second
	DefaultBodyReadTimeout    = 30 * time.Second
	DefaultIdleTimeout        = 2 * time.Minute
	DefaultStreamWriteTimeout = 10 * time.Second
	DefaultStreamKeepAlive    = 15 * time.Second
	DefaultMaxStreams         = 64
)

func (c SecurityConfig) withDefaults() SecurityConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&c.BodyReadTimeout, DefaultBodyReadTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.StreamWriteTimeout, DefaultStreamWriteTimeout)
	def(&c.StreamKeepAlive, DefaultStreamKeepAlive)
	if c.MaxStreams <= 0 {
		c.MaxStreams = DefaultMaxStreams
	}
	return c
}

// HTTPServer returns an *http.Server for s with the connection bounds set.
// There is no overall write timeout, because a streamed reply may rightly
// last minutes; streams bound each write instead.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.sec.ReadHeaderTimeout,
		IdleTimeout:       s.sec.IdleTimeout,
	}
}

// boundBody gives the request body a read deadline, and lifts it once the
// body has been read: the server's own background read, which watches for
// the client going away during a long stream, must not hit it later.
func (s *Server) boundBody(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.sec.BodyReadTimeout)) != nil {
		return
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, limit: s.sec.BodyReadTimeout}
}

type deadlineBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	limit time.Duration
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.done:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: the server then cannot wait on the rest of
		// the trickle before answering, and closes the connection.
		err = smriti.Errorf(smriti.ETIMEOUT, "the request body arrived too slowly: it must arrive within %s", b.limit)
	}
	return n, err
}
