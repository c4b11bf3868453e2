package storetest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP relay on 127.0.0.1 in front of a database server, for
// tests that take the database away and bring it back: Cut closes the
// listener and every relayed connection (new connections are refused,
// open ones break), Restore listens again on the same port.
type Proxy struct {
	t      testing.TB
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	// thawed is closed while bytes flow; Freeze replaces it with an open
	// channel, and the relays hold what they read until Thaw closes it.
	thawed chan struct{}
}

// NewProxy relays to the host and port of the postgres:// URL dsn and
// returns the proxy and dsn rewritten to go through it.
func NewProxy(t testing.TB, dsn string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, target: u.Host, conns: map[net.Conn]bool{}, thawed: make(chan struct{})}
	close(p.thawed)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Cut)
	u.Host = p.addr
	return p, u.String()
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.relay(c)
		}
	}()
}

func (p *Proxy) relay(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { p.copy(s, c); s.Close(); c.Close() }()
	p.copy(c, s)
	c.Close()
	s.Close()
}

// copy relays from src to dst, holding each read while frozen.
func (p *Proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			gate := p.thawed
			p.mu.Unlock()
			<-gate
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Freeze stops relaying bytes without closing anything, as a database
// server stopped with SIGSTOP or a network gone quiet does.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.thawed:
		p.thawed = make(chan struct{})
	default:
	}
}

// Thaw relays again what was held and what follows.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.thawed:
	default:
		close(p.thawed)
	}
}

// Cut refuses new connections and breaks the open ones.
func (p *Proxy) Cut() {
	p.Thaw()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore accepts connections again on the same address.
func (p *Proxy) Restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}
