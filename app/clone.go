package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"smriti"
	"smriti/internal/memtrim"
	"smriti/portability"
	"smriti/remote"
)

// CloneRequest asks for a local exact copy of a space on another server.
type CloneRequest struct {
	URL     string
	Token   string
	SpaceID smriti.ID
	// Name is the remote's name here ("" is origin).
	Name string
}

// Clone makes this server's exact copy of a space on another server —
// same ids and hashes, private sessions excepted — and records the other
// server as a remote with its heads. The bundle streams through a spool
// file, so memory stays bounded. ECONFLICT when the space exists here.
func (a *App) Clone(ctx context.Context, in CloneRequest) (*smriti.Space, error) {
	if in.Name == "" {
		in.Name = "origin"
	}
	probe := remote.Create{Name: in.Name, URL: in.URL, Token: in.Token}
	if err := probe.Validate(); err != nil {
		return nil, err
	}
	peer, err := a.dialURL(remote.NormalizeURL(in.URL), in.Token)
	if err != nil {
		return nil, err
	}
	named := &remote.Remote{Name: in.Name, URL: remote.NormalizeURL(in.URL)}
	_, cursor, err := peer.Refs(ctx, in.SpaceID)
	if err != nil {
		return nil, peerError(named, err)
	}
	body, err := peer.Export(ctx, in.SpaceID)
	if err != nil {
		return nil, peerError(named, err)
	}
	spool, err := os.CreateTemp("", "smriti-clone-*")
	if err != nil {
		body.Close()
		return nil, fmt.Errorf("clone: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	release := memtrim.Hold()
	counts, err := spoolScanned(spool, body)
	body.Close()
	release()
	if err != nil {
		return nil, err
	}
	sp, _, err := portability.ImportScanned(ctx, a.store, spool, counts, false)
	if err != nil {
		return nil, err
	}
	id := in.SpaceID
	if _, err := a.store.AddRemote(ctx, remote.Create{SpaceID: sp.ID, Name: in.Name, URL: in.URL, RemoteSpaceID: &id, Token: in.Token}); err != nil {
		return nil, err
	}
	heads, local, err := a.store.SyncHeads(ctx, sp.ID)
	if err != nil {
		return nil, err
	}
	if err := a.store.SetRemoteHeads(ctx, sp.ID, in.Name, heads, &cursor, &local); err != nil {
		return nil, err
	}
	return sp, nil
}

// spoolScanned copies a clone's bundle into spool and counts its records
// on the way (portability.ScanBundle, on a goroutine of its own), so the
// import that follows decodes each record once, checking it as it writes
// it. The counts are nil when the scan could not tell them; the import
// then checks the bundle whole first.
func spoolScanned(spool io.Writer, body io.Reader) (*portability.BundleCounts, error) {
	pr, pw := io.Pipe()
	done := make(chan *portability.BundleCounts, 1)
	go func() {
		counts := portability.ScanBundle(pr)
		// Keep reading after a scan that gave up, so the copy below
		// finishes and reports the transfer's own error, if any.
		io.Copy(io.Discard, pr)
		done <- counts
	}()
	_, err := io.Copy(io.MultiWriter(spool, pw), body)
	pw.CloseWithError(err)
	counts := <-done
	if err != nil {
		return nil, smriti.Errorf(smriti.EINVALID, "the clone's transfer was cut off (%v); nothing was written, run it again", err)
	}
	return counts, nil
}
